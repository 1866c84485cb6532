// Ingest layer: parses a Magnolia YAML bootstrap export into an ImportDocument (no store access).
import { readFile } from 'node:fs/promises';
import {
  LineCounter, Scalar, isAlias, isMap, isScalar, isSeq, parseDocument,
  type Document, type Node as YamlNode, type ParsedNode,
} from 'yaml';
import type { BlobSpool } from '../store/rows.js';
import type { ImportDocument, NodeDraft } from '../repository/import-document.js';
import {
  coerceValue, normalizeDate, parsePropertyType, type PropertyType, type ScalarValue,
} from '../model/property-type.js';
import { ImportError, toImportError } from './import-error.js';
import { parseExportFileName } from './parse-file-name.js';
import { addProperty, newDraft, nodeNameProblem, propertyNameProblem } from './node-draft.js';
import { spoolBase64 } from './blob-spool.js';
import { MAX_IMPORT_DEPTH, MAX_IMPORT_VALUE_CHARS, MAX_ALIAS_EXPANSION } from './import-limits.js';

const YAML_TAG = 'tag:yaml.org,2002:';
/** `!!int` and friends are not Magnolia's, but hand-written exports use them; map them to JCR types. */
const YAML_CORE_TAGS: ReadonlyMap<string, PropertyType | null> = new Map([
  ['str', 'String'], ['int', 'Long'], ['float', 'Double'], ['bool', 'Boolean'], ['timestamp', 'Date'], ['binary', 'Binary'],
  ['null', null],
]);
const NULL_TEXT = /^(?:~|null|Null|NULL|)$/;
const BOOLEAN_TEXT = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INTEGER_TEXT = /^[-+]?[0-9]+$/;
/** YAML 1.2 core-schema float; also what a `!decimal` value must look like. */
const NUMBER_TEXT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}(?:[T ]|$)/;

interface TypedValue {
  type: PropertyType;
  value: ScalarValue;
  /** The scalar's text, used when the items of a sequence disagree and everything falls back to String. */
  text: string;
  explicit: boolean;
}

export async function parseYamlExport(file: string, opts: { spoolDir: string }): Promise<ImportDocument> {
  const { workspace, parentPath } = parseExportFileName(file);
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (err) {
    throw toImportError(file, err);
  }
  const reader = new YamlExportReader(file, source, opts.spoolDir);
  const root = await reader.read();
  return { source: file, workspace, parentPath, roots: [root], blobs: [...reader.blobs.values()] };
}

class YamlExportReader {
  readonly blobs = new Map<string, BlobSpool>();
  private readonly lines = new LineCounter();
  private readonly doc: Document.Parsed;
  /** Nodes that aliases may still add: an alias repeats its anchor's whole subtree, so nested ones multiply. */
  private aliasBudget = MAX_ALIAS_EXPANSION;
  private readonly subtreeSizes = new WeakMap<object, number>();

  constructor(private readonly file: string, source: string, private readonly spoolDir: string) {
    // The failsafe schema keeps every plain scalar as its text, so types are inferred here by JCR rules
    // (a bare timestamp is a Date, not the string the core schema would make of it).
    this.doc = parseDocument(source, { lineCounter: this.lines, schema: 'failsafe', prettyErrors: false });
  }

  async read(): Promise<NodeDraft> {
    const error = this.doc.errors[0];
    // The parser reports its own stack running out (about 900 levels of nesting) as this code.
    if (error?.code === 'RESOURCE_EXHAUSTION') throw this.fail(error.pos[0], `nodes nested too deep to read (${error.message})`);
    if (error) throw this.fail(error.pos[0], error.message);
    const top = this.doc.contents;
    if (!top || (isScalar(top) && top.value === '')) throw this.fail(0, 'the file is empty');
    if (!isMap(top)) throw this.fail(top.range[0], 'expected a mapping whose single key is the node name');
    if (top.items.length === 0) throw this.fail(top.range[0], 'the file holds no node');
    if (top.items.length > 1) {
      throw this.fail(offsetOf(top.items[1].key) ?? top.range[0], 'more than one top-level key (an export holds one node)');
    }
    const [pair] = top.items;
    return this.readNode(pair.key, pair.value);
  }

  private async readNode(keyNode: ParsedNode | null, valueNode: ParsedNode | null, depth = 1): Promise<NodeDraft> {
    const name = this.keyName(keyNode);
    const problem = nodeNameProblem(name);
    if (problem !== undefined) throw this.fail(offsetOf(keyNode), problem);
    if (depth > MAX_IMPORT_DEPTH) throw this.fail(offsetOf(keyNode), `nodes nested more than ${MAX_IMPORT_DEPTH} deep`);
    const value = this.deref(valueNode);
    const draft = newDraft(name, this.lineOf(offsetOf(keyNode)));
    if (value === null || (isScalar(value) && value.type === Scalar.PLAIN && isNullText(value))) return draft;
    if (!isMap(value)) throw this.fail(value.range?.[0], `node "${name}" must be a mapping`);
    for (const { key, value: item } of value.items) {
      const itemName = this.keyName(key);
      const itemValue = this.deref(item);
      if (isMap(itemValue)) {
        draft.children.push(await this.readNode(key, itemValue, depth + 1));
        continue;
      }
      const problem = propertyNameProblem(itemName);
      if (problem !== undefined) throw this.fail(offsetOf(key), problem);
      if (isSeq(itemValue)) {
        const multi = await this.readSequence(itemName, itemValue.items, itemValue.tag);
        addProperty(draft, itemName, multi.type, multi.values);
      } else if (isScalar(itemValue)) {
        const single = await this.readScalar(itemName, itemValue, undefined);
        if (single) addProperty(draft, itemName, single.type, single.value);
      } else if (itemValue !== null) {
        throw this.fail(offsetOf(key), `unsupported value for "${itemName}"`);
      }
    }
    return draft;
  }

  private async readSequence(
    name: string, items: readonly unknown[], seqTag: string | undefined,
  ): Promise<{ type: PropertyType; values: ScalarValue[] }> {
    const read: TypedValue[] = [];
    for (const item of items) {
      const node = isAlias(item) ? this.deref(item as ParsedNode) : item;
      if (!isScalar(node)) throw this.fail(offsetOf(item), `"${name}": a multi-value property holds only scalars`);
      const value = await this.readScalar(name, node, seqTag);
      if (!value) throw this.fail(offsetOf(node), `"${name}": a multi-value property cannot hold null`);
      read.push(value);
    }
    if (read.length === 0) return { type: 'String', values: [] };
    const type = read[0].type;
    if (read.every((v) => v.type === type)) return { type, values: read.map((v) => v.value) };
    // Inferred types may disagree (`[1, a]`); explicitly tagged ones must not, or data would be lost.
    if (read.some((v) => v.explicit && v.type !== 'String')) {
      throw this.fail(offsetOf(items[0]), `"${name}": the values of a multi-value property have different types`);
    }
    return { type: 'String', values: read.map((v) => v.text) };
  }

  /** Returns undefined for a null value, which Magnolia exports never write and which means "no property". */
  private async readScalar(name: string, node: Scalar, seqTag: string | undefined): Promise<TypedValue | undefined> {
    const tag = node.tag ?? seqTag;
    const text = node.source ?? (typeof node.value === 'string' ? node.value : String(node.value));
    const where = node.range?.[0];
    // A binary is spooled to disk, so only the file's size bounds it; other values are kept in memory.
    if (text.length > MAX_IMPORT_VALUE_CHARS && !(tag !== undefined && this.tagType(tag, node) === 'Binary')) {
      throw this.fail(where, `"${name}": a value longer than ${MAX_IMPORT_VALUE_CHARS} characters`);
    }
    if (tag === undefined) {
      if (node.type !== Scalar.PLAIN) return { type: 'String', value: text, text, explicit: false };
      if (NULL_TEXT.test(text)) return undefined;
      const type = inferPlainType(text);
      return { type, value: coerceValue(type, text), text, explicit: false };
    }
    const type = this.tagType(tag, node);
    if (type === null) return undefined;
    if (type === 'Binary') {
      try {
        const blob = await spoolBase64(this.spoolDir, text);
        this.blobs.set(blob.hash, blob);
        return { type, value: blob.hash, text, explicit: true };
      } catch (err) {
        throw this.fail(where, `"${name}": bad ${tag} value: ${messageOf(err)}`, err);
      }
    }
    if (type === 'Decimal' && !NUMBER_TEXT.test(text.trim())) {
      throw this.fail(where, `"${name}": bad ${tag} value: ${JSON.stringify(text)}`);
    }
    try {
      return { type, value: coerceValue(type, text), text, explicit: true };
    } catch (err) {
      throw this.fail(where, `"${name}": bad ${tag} value: ${messageOf(err)}`, err);
    }
  }

  /** `!weakreference`, `!Long`, … name JCR types case-insensitively; null means a `!!null` value. */
  private tagType(tag: string, node: YamlNode): PropertyType | null {
    if (tag.startsWith(YAML_TAG)) {
      const core = YAML_CORE_TAGS.get(tag.slice(YAML_TAG.length));
      if (core !== undefined) return core;
    } else if (tag.startsWith('!')) {
      const type = parsePropertyType(tag.slice(1));
      if (type) return type;
    }
    throw this.fail(node.range?.[0], `unknown tag ${tag}`);
  }

  private keyName(key: ParsedNode | null): string {
    if (isScalar(key) && typeof key.value === 'string' && key.value !== '') return key.value;
    throw this.fail(offsetOf(key), 'a key must be a non-empty string (a node or property name)');
  }

  private deref(node: ParsedNode | null): ParsedNode | null {
    if (!isAlias(node)) return node;
    const target = node.resolve(this.doc);
    if (target === undefined) throw this.fail(node.range[0], `unresolved alias *${node.source}`);
    this.aliasBudget -= this.subtreeSize(target);
    if (this.aliasBudget < 0) {
      throw this.fail(node.range[0], `aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes (an alias bomb?)`);
    }
    return target as ParsedNode;
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

  private lineOf(offset: number | undefined): number | undefined {
    return offset === undefined ? undefined : this.lines.linePos(offset).line;
  }

  private fail(offset: number | undefined, reason: string, cause?: unknown): ImportError {
    return new ImportError(this.file, this.lineOf(offset), reason, cause === undefined ? undefined : { cause });
  }
}

function inferPlainType(text: string): PropertyType {
  if (BOOLEAN_TEXT.test(text)) return 'Boolean';
  if (INTEGER_TEXT.test(text)) return 'Long';
  if (NUMBER_TEXT.test(text)) return 'Double';
  if (DATE_TEXT.test(text) && normalizeDate(text) !== undefined) return 'Date';
  return 'String';
}

function isNullText(node: Scalar): boolean {
  return typeof node.value === 'string' && NULL_TEXT.test(node.value);
}

function offsetOf(node: unknown): number | undefined {
  if (node && typeof node === 'object' && 'range' in node) {
    const range = (node as { range?: readonly number[] | null }).range;
    return range?.[0];
  }
  return undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
