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
  private piece!: ComposedPiece;

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
        this.anchors.set(anchor, { node: size > MAX_ALIAS_EXPANSION ? undefined : node, size });
      },
    });
  }

  /** The whole document as the old reader took it (a file the line reader could not start on). */
  readDocument(piece: ComposedPiece): void {
    this.piece = piece;
    const top = piece.doc.contents;
    if (!top || (isScalar(top) && top.value === '')) throw this.fail(0, 'the file is empty');
    if (!isMap(top)) throw this.fail(top.range[0], 'expected a mapping whose single key is the node name');
    if (top.items.length === 0) throw this.fail(top.range[0], 'the file holds no node');
    if (top.items.length > 1) {
      throw this.fail(offsetOf(top.items[1]!.key) ?? top.range[0], 'more than one top-level key (an export holds one node)');
    }
    const [pair] = top.items;
    this.readNode(pair!.key, pair!.value, 1);
  }

  /** The single pair of a piece, if it is one (undefined: not a mapping of one pair). */
  static pairOf(piece: ComposedPiece): { key: ParsedNode | null; value: ParsedNode | null } | undefined {
    const top = piece.doc.contents;
    if (!isMap(top) || top.items.length !== 1) return undefined;
    return top.items[0]!;
  }

  /** A root node (the top-level pair of the file). */
  readRoot(piece: ComposedPiece, key: ParsedNode | null, value: ParsedNode | null): void {
    this.piece = piece;
    this.readNode(key, value, 1);
  }

  /** An item of the open node at `depth`: a child node or a property. */
  readItem(piece: ComposedPiece, key: ParsedNode | null, item: ParsedNode | null, depth: number): void {
    this.piece = piece;
    const itemName = this.keyName(key);
    const itemValue = this.deref(item);
    if (isMap(itemValue)) {
      this.readNode(key, itemValue, depth + 1);
      return;
    }
    const problem = propertyNameProblem(itemName);
    if (problem !== undefined) throw this.fail(offsetOf(key), problem);
    if (isSeq(itemValue)) {
      const multi = this.readSequence(itemName, itemValue.items, itemValue.tag);
      this.sink().property(itemName, multi.type, multi.values, this.piece.lineOf(offsetOf(key)));
    } else if (isScalar(itemValue)) {
      const single = typeScalar(this.typing, itemName, this.raw(itemValue), undefined);
      if (single) this.sink().property(itemName, single.type, single.value, this.piece.lineOf(offsetOf(key)));
    } else if (itemValue !== null) {
      throw this.fail(offsetOf(key), `unsupported value for "${itemName}"`);
    }
  }

  /** The key of a piece's pair as a name, for the duplicate check; undefined when it is not a string. */
  static keyText(key: ParsedNode | null): string | undefined {
    return isScalar(key) && typeof key.value === 'string' ? key.value : undefined;
  }

  private readNode(keyNode: ParsedNode | null, valueNode: ParsedNode | null, depth: number): void {
    const name = this.keyName(keyNode);
    const problem = nodeNameProblem(name);
    if (problem !== undefined) throw this.fail(offsetOf(keyNode), problem);
    if (depth > MAX_IMPORT_DEPTH) throw this.fail(offsetOf(keyNode), `nodes nested more than ${MAX_IMPORT_DEPTH} deep`);
    const value = this.deref(valueNode);
    const sink = this.sink();
    if (value === null || (isScalar(value) && value.type === Scalar.PLAIN && isNullText(value))) {
      sink.openNode(name, this.piece.lineOf(offsetOf(keyNode)));
      sink.closeNode();
      return;
    }
    if (!isMap(value)) throw this.fail(value.range?.[0], `node "${name}" must be a mapping`);
    sink.openNode(name, this.piece.lineOf(offsetOf(keyNode)));
    for (const { key, value: item } of value.items) this.readItem(this.piece, key, item, depth);
    sink.closeNode();
  }

  private readSequence(name: string, items: readonly unknown[], seqTag: string | undefined) {
    const read: TypedValue[] = [];
    for (const item of items) {
      const node = isAlias(item) ? this.deref(item as ParsedNode) : item;
      if (!isScalar(node)) throw this.fail(offsetOf(item), `"${name}": a multi-value property holds only scalars`);
      const value = typeScalar(this.typing, name, this.raw(node), seqTag);
      if (!value) throw this.fail(offsetOf(node), `"${name}": a multi-value property cannot hold null`);
      read.push(value);
    }
    return combineSequence(this.typing, name, read, this.piece.lineOf(offsetOf(items[0])));
  }

  private raw(node: Scalar): RawScalar {
    const text = node.source ?? (typeof node.value === 'string' ? node.value : String(node.value));
    return { text, plain: node.type === Scalar.PLAIN, tag: node.tag, line: this.piece.lineOf(node.range?.[0]) };
  }

  private keyName(key: ParsedNode | null): string {
    if (isScalar(key) && typeof key.value === 'string' && key.value !== '') return key.value;
    throw this.fail(offsetOf(key), 'a key must be a non-empty string (a node or property name)');
  }

  private deref(node: ParsedNode | null): ParsedNode | null {
    if (!isAlias(node)) return node;
    // An anchor of this piece before the alias, else the last one of an earlier piece.
    const own = node.resolve(this.piece.doc);
    const target: Anchored | undefined = own !== undefined ? { node: own, size: this.subtreeSize(own) } : this.anchors.get(node.source);
    if (target === undefined) throw this.fail(node.range[0], `unresolved alias *${node.source}`);
    this.aliasBudget -= target.size;
    if (this.aliasBudget < 0 || target.node === undefined) {
      throw this.fail(node.range[0], `aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes (an alias bomb?)`);
    }
    return target.node as ParsedNode;
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

  private fail(offset: number | undefined, reason: string): ImportError {
    return new ImportError(this.file, this.piece.lineOf(offset), reason);
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
