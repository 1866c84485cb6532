// Ingest layer: what the YAML line reader (yaml-export-reader.ts) hands a complete item to: the JCR
// rules of an export's content (node and property names, depth, values typed by JCR rules, binaries
// spooled to disk) and the DraftSink that receives it. The reader decides where an item starts and
// ends; these rules decide what it means.
import type { BlobSpool } from '../store/rows.js';
import type { DraftSink } from './draft-sink.js';
import { ImportError } from './import-error.js';
import { Base64Spool } from './blob-spool.js';
import { nodeNameProblem, propertyNameProblem } from './node-draft.js';
import { MAX_IMPORT_DEPTH } from './import-limits.js';
import { isNullScalar, typeSequence, typeText, type RawScalar, type TypedValue, type TypingContext } from './yaml-scalar-typing.js';
import type { ScannedValue } from './yaml-line-scan.js';
const EMPTY_KEY = 'a key must be a non-empty string (a node or property name)';
/** Property names found valid, kept up to this many (a file of ever new names does not grow it past). */
const CHECKED_NAMES = 4096;

export class YamlItemRules {
  readonly typing: TypingContext;
  readonly #spooled = new Map<string, BlobSpool>();
  /** Property names found valid: an export repeats a dozen names on every node, each checked once. */
  readonly #validNames = new Set<string>();
  /** Where a leaf's value is typed, refilled for each. */
  readonly #typed: TypedValue = { type: 'String', value: '', text: '', explicit: false };
  #pendingSpools: Base64Spool[] = [];

  constructor(file: string, spoolDir: string, readonly sink: DraftSink) {
    this.typing = {
      fail: (line, reason, cause) => new ImportError(file, line, reason, cause === undefined ? undefined : { cause }),
      spoolBinary: (text) => {
        const spool = new Base64Spool(spoolDir);
        this.#pendingSpools.push(spool);
        spool.appendBase64(text);
        const blob = spool.end();
        this.#spooled.set(blob.hash, blob);
        return blob;
      },
    };
  }

  /** Waits for the binaries spooled so far to be on disk. */
  async settled(): Promise<void> {
    for (const spool of this.#pendingSpools) await spool.settled();
    this.#pendingSpools = [];
  }

  async abort(): Promise<void> {
    await Promise.all(this.#pendingSpools.map((spool) => spool.abort()));
  }

  blobs(): BlobSpool[] {
    return [...this.#spooled.values()];
  }

  /** A node `name` opened at `depth` (1 for the file's top node). */
  checkNodeName(name: string, line: number, depth: number): void {
    if (name === '') throw this.typing.fail(line, EMPTY_KEY);
    const problem = nodeNameProblem(name);
    if (problem !== undefined) throw this.typing.fail(line, problem);
    if (depth > MAX_IMPORT_DEPTH) throw this.typing.fail(line, `nodes nested more than ${MAX_IMPORT_DEPTH} deep`);
  }

  /** The file's single top-level key with a one-line value: an empty node, or an error. */
  rootLeaf(key: string, line: number, value: ScannedValue): void {
    this.checkNodeName(key, line, 1);
    const empty = value.kind === 'none' || value.kind === 'emptyMap'
      || (value.kind === 'scalar' && value.plain && isNullScalar({ text: value.text, plain: true, tag: undefined, line }));
    if (!empty) throw this.typing.fail(line, `node "${key}" must be a mapping`);
    this.sink.openNode(key, line);
    this.sink.closeNode();
  }

  /** A key with a one-line value inside a node at `depth`: a property, or an empty child node (`{}`). */
  leaf(depth: number, key: string, line: number, value: ScannedValue): void {
    if (key === '') throw this.typing.fail(line, EMPTY_KEY);
    if (value.kind === 'emptyMap') {
      this.checkNodeName(key, line, depth + 1);
      this.sink.openNode(key, line);
      this.sink.closeNode();
      return;
    }
    this.checkPropertyName(key, line);
    if (value.kind === 'sequence') {
      const items: RawScalar[] = value.items.map((item) => ({ text: item.text, plain: item.plain, tag: item.tag, line }));
      const multi = typeSequence(this.typing, key, items, value.tag, line);
      this.sink.property(key, multi.type, multi.values, line);
      return;
    }
    // `key:` alone is an empty plain scalar (null).
    const scalar = value.kind === 'scalar';
    const typed = this.#typed;
    if (typeText(this.typing, key, scalar ? value.text : '', scalar ? value.plain : true, scalar ? value.tag : undefined, line, undefined, typed)) {
      this.sink.property(key, typed.type, typed.value, line);
    }
  }

  /** A multi-value property written as a block sequence of one-line scalars (the first `count` of `items`). */
  sequence(key: string, line: number, items: readonly RawScalar[], count: number): void {
    this.checkPropertyName(key, line);
    const multi = typeSequence(this.typing, key, items, undefined, line, count);
    this.sink.property(key, multi.type, multi.values, line);
  }

  private checkPropertyName(key: string, line: number): void {
    if (this.#validNames.has(key)) return;
    if (key === '') throw this.typing.fail(line, EMPTY_KEY);
    const problem = propertyNameProblem(key);
    if (problem !== undefined) throw this.typing.fail(line, problem);
    if (this.#validNames.size >= CHECKED_NAMES) this.#validNames.clear();
    this.#validNames.add(key);
  }
}
