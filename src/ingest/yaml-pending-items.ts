// Ingest layer: the items the YAML line reader (yaml-export-reader.ts) holds while it reads: the open
// block mappings (levels) and the one item not yet complete, and how an item the line reader does not
// read itself becomes a piece of text for the `yaml` package (yaml-composed-items.ts) to compose.
import type { KeySet } from './yaml-line-shapes.js';
import type { ScannedValue } from './yaml-line-scan.js';
import type { RawScalar } from './yaml-scalar-typing.js';

/** A block mapping being read: the document's top level (depth 0) or an open node's (its depth). */
export interface Level {
  readonly indent: number;
  readonly depth: number;
  /** Keys read so far: YAML refuses a key twice in one mapping. */
  readonly keys: KeySet;
}

/** The item being read: complete once a line at its level (or above) starts. */
export type Pending =
  | { kind: 'leaf'; level: Level; key: string; line: number; value: ScannedValue; raw: string[] }
  | { kind: 'open'; level: Level; key: string; line: number; raw: string[] }
  | { kind: 'quote'; level: Level; key: string; line: number; tag: string | undefined; parts: string[]; raw: string[] }
  /** A block sequence of one-line scalars (how Magnolia writes a multi-value property): `key:` then `- a` lines. */
  | { kind: 'seq'; level: Level; key: string; line: number; itemIndent: number; seqAtIndent: boolean; items: RawScalar[]; raw: string[] }
  | {
    kind: 'piece'; level: Level; line: number; raw: string[]; keyChecked: boolean; seqAtIndent: boolean;
    /** Cut by a line a quoted scalar may not hold: `yaml` ends the scalar before that line break, so the piece does too. */
    cut?: boolean;
  };

export type Piece = Pending & { kind: 'piece' };

/**
 * The item as a piece for `yaml`, its lines so far plus `next` when given (a line that continues it).
 * The key was checked when the item began; `seqAtIndent` says a block sequence may sit at the key's indentation.
 */
export function pieceOf(p: Pending, next?: string, seqAtIndent = false): Piece {
  return { kind: 'piece', level: p.level, line: p.line, raw: next === undefined ? p.raw : [...p.raw, next], keyChecked: true, seqAtIndent };
}
