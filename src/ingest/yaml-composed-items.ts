// Ingest layer: the parts of a YAML export that the line reader leaves to the `yaml` package (block
// scalars, anchors and aliases, flow mappings, escapes…): one item at a time is composed by `yaml` and
// read here by the same rules, and told to the sink in document order.
import {
  LineCounter, Scalar, isAlias, isMap, isScalar, isSeq, parseDocument, visit,
  type Document, type Node as YamlNode, type ParsedNode,
} from 'yaml';
import type { DraftSink } from './draft-sink.js';
import { ImportError } from './import-error.js';
import { nodeNameProblem, propertyNameProblem } from './node-draft.js';
import { MAX_ALIAS_EXPANSION, MAX_IMPORT_DEPTH } from './import-limits.js';
import {
  combineSequence, isNullScalar, typeScalar, type RawScalar, type TypedValue, type TypingContext,
} from './yaml-scalar-typing.js';

/** A text composed by `yaml`: offsets in it are turned into lines of the file. */
export class ComposedPiece {
  readonly doc: Document.Parsed;
  private readonly lines = new LineCounter();

  constructor(text: string, private readonly firstLine: number) {
    // The failsafe schema keeps every plain scalar as its text, so types are inferred by JCR rules
    // (a bare timestamp is a Date, not the string the core schema would make of it).
    this.doc = parseDocument(text, { lineCounter: this.lines, schema: 'failsafe', prettyErrors: false });
  }

  lineOf(offset: number | undefined): number | undefined {
    return offset === undefined ? undefined : this.firstLine - 1 + this.lines.linePos(offset).line;
  }

  /** The first YAML error, located in the file. */
  firstError(file: string): ImportError | undefined {
    const error = this.doc.errors[0];
    if (!error) return undefined;
    // The parser reports its own stack running out (about 900 levels of nesting) as this code.
    const reason = error.code === 'RESOURCE_EXHAUSTION' ? `nodes nested too deep to read (${error.message})` : error.message;
    return new ImportError(file, this.lineOf(error.pos[0]), reason);
  }
}

interface Anchored {
  /** Undefined once it is too big for any alias to repeat (it is not kept then). */
  readonly node: YamlNode | undefined;
  readonly size: number;
  /** Where its offsets are lines. */
  readonly piece: ComposedPiece;
}

/** A composed node with the piece it was composed in (an alias's target may be in an earlier one). */
interface Located<T> {
  readonly node: T;
  readonly piece: ComposedPiece;
}

/**
 * Reads composed items into a sink. Anchors outlive their piece (an alias may name one written
 * earlier in the file), but only those small enough for an alias to repeat within the bound.
 */
export class ComposedReader {
  /** Nodes that aliases may still add: an alias repeats its anchor's whole subtree, so nested ones multiply. */
  private aliasBudget = MAX_ALIAS_EXPANSION;
  private readonly subtreeSizes = new WeakMap<object, number>();
  private readonly anchors = new Map<string, Anchored>();

  constructor(
    private readonly file: string,
    private readonly typing: TypingContext,
    private readonly sink: () => DraftSink,
  ) {}

  /** Remembers the anchors of a piece for the aliases of later ones (the last one of a name wins, as in YAML). */
  keepAnchors(piece: ComposedPiece, text: string): void {
    if (!text.includes('&')) return;
    visit(piece.doc, {
      Node: (_key, node) => {
        const anchor = (node as { anchor?: string }).anchor;
        if (anchor === undefined) return;
        const size = this.subtreeSize(node);
        this.anchors.set(anchor, { node: size > MAX_ALIAS_EXPANSION ? undefined : node, size, piece });
      },
    });
  }

  /** The whole document as the old reader took it (a file the line reader could not start on). */
  readDocument(piece: ComposedPiece): void {
    const top = piece.doc.contents;
    if (!top || (isScalar(top) && top.value === '')) throw this.fail(piece, 0, 'the file is empty');
    if (!isMap(top)) throw this.fail(piece, top.range[0], 'expected a mapping whose single key is the node name');
    if (top.items.length === 0) throw this.fail(piece, top.range[0], 'the file holds no node');
    if (top.items.length > 1) {
      throw this.fail(piece, offsetOf(top.items[1]!.key) ?? top.range[0], 'more than one top-level key (an export holds one node)');
    }
    const [pair] = top.items;
    this.readNode(piece, pair!.key, { node: pair!.value, piece }, 1);
  }

  /** The single pair of a piece, if it is one (undefined: not a mapping of one pair). */
  static pairOf(piece: ComposedPiece): { key: ParsedNode | null; value: ParsedNode | null } | undefined {
    const top = piece.doc.contents;
    if (!isMap(top) || top.items.length !== 1) return undefined;
    return top.items[0]!;
  }

  /** The key of a piece's pair as a name, for the duplicate check; undefined when it is not a string. */
  static keyText(key: ParsedNode | null): string | undefined {
    return isScalar(key) && typeof key.value === 'string' ? key.value : undefined;
  }

  /** A root node (the top-level pair of the file). */
  readRoot(piece: ComposedPiece, key: ParsedNode | null, value: ParsedNode | null): void {
    this.readNode(piece, key, { node: value, piece }, 1);
  }

  /** An item of the open node at `depth`: a child node or a property. */
  readItem(piece: ComposedPiece, key: ParsedNode | null, item: ParsedNode | null, depth: number): void {
    const itemName = this.keyName(piece, key);
    const itemValue = this.deref({ node: item, piece });
    const value = itemValue.node;
    if (isMap(value)) {
      this.readNode(piece, key, itemValue, depth + 1);
      return;
    }
    const problem = propertyNameProblem(itemName);
    if (problem !== undefined) throw this.fail(piece, offsetOf(key), problem);
    if (isSeq(value)) {
      const multi = this.readSequence(itemName, { node: value, piece: itemValue.piece });
      this.sink().property(itemName, multi.type, multi.values, piece.lineOf(offsetOf(key)));
    } else if (isScalar(value)) {
      const single = typeScalar(this.typing, itemName, this.raw({ node: value, piece: itemValue.piece }), undefined);
      if (single) this.sink().property(itemName, single.type, single.value, piece.lineOf(offsetOf(key)));
    } else if (value !== null) {
      throw this.fail(piece, offsetOf(key), `unsupported value for "${itemName}"`);
    }
  }

  private readNode(keyPiece: ComposedPiece, keyNode: ParsedNode | null, valueNode: Located<ParsedNode | null>, depth: number): void {
    const name = this.keyName(keyPiece, keyNode);
    const problem = nodeNameProblem(name);
    if (problem !== undefined) throw this.fail(keyPiece, offsetOf(keyNode), problem);
    if (depth > MAX_IMPORT_DEPTH) throw this.fail(keyPiece, offsetOf(keyNode), `nodes nested more than ${MAX_IMPORT_DEPTH} deep`);
    const { node: value, piece } = this.deref(valueNode);
    const sink = this.sink();
    const line = keyPiece.lineOf(offsetOf(keyNode));
    if (value === null || (isScalar(value) && value.type === Scalar.PLAIN && isNullText(value))) {
      sink.openNode(name, line);
      sink.closeNode();
      return;
    }
    if (!isMap(value)) throw this.fail(piece, value.range?.[0], `node "${name}" must be a mapping`);
    sink.openNode(name, line);
    for (const { key, value: item } of value.items) this.readItem(piece, key, item, depth);
    sink.closeNode();
  }

  private readSequence(name: string, seq: Located<{ items: readonly unknown[]; tag?: string }>) {
    const read: TypedValue[] = [];
    const { piece } = seq;
    for (const item of seq.node.items) {
      const target = isAlias(item) ? this.deref({ node: item as ParsedNode, piece }) : { node: item, piece };
      const node = target.node;
      if (!isScalar(node)) throw this.fail(piece, offsetOf(item), `"${name}": a multi-value property holds only scalars`);
      const value = typeScalar(this.typing, name, this.raw({ node, piece: target.piece }), seq.node.tag);
      if (!value) throw this.fail(target.piece, offsetOf(node), `"${name}": a multi-value property cannot hold null`);
      read.push(value);
    }
    return combineSequence(this.typing, name, read, piece.lineOf(offsetOf(seq.node.items[0])));
  }

  private raw({ node, piece }: Located<Scalar>): RawScalar {
    const text = node.source ?? (typeof node.value === 'string' ? node.value : String(node.value));
    return { text, plain: node.type === Scalar.PLAIN, tag: node.tag, line: piece.lineOf(node.range?.[0]) };
  }

  private keyName(piece: ComposedPiece, key: ParsedNode | null): string {
    if (isScalar(key) && typeof key.value === 'string' && key.value !== '') return key.value;
    throw this.fail(piece, offsetOf(key), 'a key must be a non-empty string (a node or property name)');
  }

  private deref(located: Located<ParsedNode | null>): Located<ParsedNode | null> {
    const { node, piece } = located;
    if (!isAlias(node)) return located;
    // An anchor of this piece before the alias, else the last one of an earlier piece.
    const own = node.resolve(piece.doc);
    const target: Anchored | undefined = own !== undefined
      ? { node: own, size: this.subtreeSize(own), piece }
      : this.anchors.get(node.source);
    if (target === undefined) throw this.fail(piece, node.range[0], `unresolved alias *${node.source}`);
    this.aliasBudget -= target.size;
    if (this.aliasBudget < 0 || target.node === undefined) {
      throw this.fail(piece, node.range[0], `aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes (an alias bomb?)`);
    }
    return { node: target.node as ParsedNode, piece: target.piece };
  }

  /** Nodes below `node` as written (an alias inside counts one: it is charged again when it is read). */
  private subtreeSize(node: unknown): number {
    if (!isMap(node) && !isSeq(node)) return 1;
    const known = this.subtreeSizes.get(node);
    if (known !== undefined) return known;
    let size = 1;
    for (const item of node.items) size += isMap(node) ? 1 + this.subtreeSize((item as { value: unknown }).value) : this.subtreeSize(item);
    this.subtreeSizes.set(node, size);
    return size;
  }

  private fail(piece: ComposedPiece, offset: number | undefined, reason: string): ImportError {
    return new ImportError(this.file, piece.lineOf(offset), reason);
  }
}

export function isNullText(node: Scalar): boolean {
  return typeof node.value === 'string' && isNullScalar({ text: node.value, plain: true, tag: undefined, line: undefined });
}

function offsetOf(node: unknown): number | undefined {
  if (node && typeof node === 'object' && 'range' in node) {
    const range = (node as { range?: readonly number[] | null }).range;
    return range?.[0];
  }
  return undefined;
}
