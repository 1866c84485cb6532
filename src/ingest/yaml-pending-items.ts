// Ingest layer: the items the YAML line reader (yaml-export-reader.ts) holds while it reads: the open
// block mappings (levels) and the one item not yet complete, and how an item the line reader does not
// read itself becomes a piece of text for the `yaml` package (yaml-composed-items.ts) to compose.
//
// The items of the lines Magnolia writes (a leaf, an open key, a block sequence) are records the reader
// refills, one of each kind: an object or two per line were most of what an import allocated. Only one
// item is pending at a time, and it is completed before the next line starts another.
import { KeySet } from './yaml-line-shapes.js';
import { ScannedValue } from './yaml-line-scan.js';
import type { RawScalar } from './yaml-scalar-typing.js';

/** A block mapping being read: the document's top level (depth 0) or an open node's (its depth). */
export class Level {
  /** Keys read so far: YAML refuses a key twice in one mapping. */
  readonly keys = new KeySet();

  constructor(public indent: number, readonly depth: number) {}
}

/** The levels of each depth, reused: a level is let go when its node closes, before another opens at its depth. */
export class LevelPool {
  readonly #byDepth: Level[] = [];

  at(depth: number, indent: number): Level {
    let level = this.#byDepth[depth];
    if (level === undefined) {
      level = new Level(indent, depth);
      this.#byDepth[depth] = level;
    } else {
      level.indent = indent;
      level.keys.clear();
    }
    return level;
  }
}

/** Fields every item has: where it is and its lines as written (for `yaml`, should it have to compose it). */
abstract class Item {
  level!: Level;
  key = '';
  line = 0;
  /**
   * Its lines are the first `lineCount` (the array is not emptied: `length = 0` frees its store, and
   * the next push allocates one again). Lines past the count are an earlier item's, let go when overwritten.
   */
  readonly #lines: string[] = [];
  #lineCount = 0;

  protected begin(level: Level, key: string, line: number): void {
    this.level = level;
    this.key = key;
    this.line = line;
    this.#lineCount = 0;
  }

  addRaw(line: string): void {
    this.#lines[this.#lineCount++] = line;
  }

  /** Its lines as written, a copy. */
  get raw(): string[] {
    return this.#lines.slice(0, this.#lineCount);
  }

  /** Its lines as written, without a copy, for a moment. */
  protected eachRaw(to: Item): void {
    for (let i = 0; i < this.#lineCount; i++) to.addRaw(this.#lines[i]!);
  }
}

/** `key: value` on one line (or a single-quoted scalar over several). */
export class LeafItem extends Item {
  readonly kind = 'leaf';
  readonly value = new ScannedValue();

  start(level: Level, key: string, line: number, raw: string, value: ScannedValue): this {
    this.begin(level, key, line);
    this.addRaw(raw);
    this.value.copy(value);
    return this;
  }
}

/** `key:` with nothing after it: a nested node, a block sequence or null, as the next lines say. */
export class OpenItem extends Item {
  readonly kind = 'open';

  copyRaw(to: Item): void {
    this.eachRaw(to);
  }

  start(level: Level, key: string, line: number, raw: string): this {
    this.begin(level, key, line);
    this.addRaw(raw);
    return this;
  }
}

/** An entry of a block sequence, refilled for the next sequence (the rules read it, and keep nothing of it). */
class Entry implements RawScalar {
  text = '';
  plain = true;
  tag: string | undefined = undefined;
  line = 0;
}

/** A block sequence of one-line scalars (how Magnolia writes a multi-value property): `key:` then `- a` lines. */
export class SeqItem extends Item {
  readonly kind = 'seq';
  itemIndent = 0;
  seqAtIndent = false;
  /** Its entries are the first `count`. */
  readonly entries: Entry[] = [];
  count = 0;

  /** The sequence of `open`'s key, its first entry (`first`, read from `raw` on `line`). */
  start(open: OpenItem, itemIndent: number, first: ScannedValue, line: number, raw: string): this {
    this.begin(open.level, open.key, open.line);
    this.itemIndent = itemIndent;
    this.seqAtIndent = itemIndent === open.level.indent;
    this.count = 0;
    open.copyRaw(this);
    this.addEntry(first, line, raw);
    return this;
  }

  /** One more entry, a scalar (`value`) read from `raw` on `line`. */
  addEntry(value: ScannedValue, line: number, raw: string): void {
    let entry = this.entries[this.count];
    if (entry === undefined) this.entries.push((entry = new Entry()));
    this.count++;
    entry.text = value.text;
    entry.plain = value.plain;
    entry.tag = value.tag;
    entry.line = line;
    this.addRaw(raw);
  }
}

export class QuoteItem {
  readonly kind = 'quote';
  readonly parts: string[];
  readonly raw: string[];

  constructor(readonly level: Level, readonly key: string, readonly line: number, readonly tag: string | undefined, first: string, raw: string) {
    this.parts = [first];
    this.raw = [raw];
  }

  addRaw(line: string): void {
    this.raw.push(line);
  }
}

export interface Piece {
  readonly kind: 'piece';
  readonly level: Level;
  readonly line: number;
  readonly raw: string[];
  readonly keyChecked: boolean;
  readonly seqAtIndent: boolean;
  /** Cut by a line a quoted scalar may not hold: `yaml` ends the scalar before that line break, so the piece does too. */
  readonly cut?: boolean;
}

/** The item being read: complete once a line at its level (or above) starts. */
export type Pending = LeafItem | OpenItem | QuoteItem | SeqItem | Piece;

/**
 * The item as a piece for `yaml`, its lines so far (copied: the item's record is refilled) plus `next`
 * when given (a line that continues it). The key was checked when the item began; `seqAtIndent` says a
 * block sequence may sit at the key's indentation.
 */
export function pieceOf(p: Pending, next?: string, seqAtIndent = false): Piece {
  const raw = p.kind === 'quote' || p.kind === 'piece' ? p.raw.slice() : p.raw;
  if (next !== undefined) raw.push(next);
  return { kind: 'piece', level: p.level, line: p.line, raw, keyChecked: true, seqAtIndent };
}
