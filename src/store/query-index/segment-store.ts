// Store layer (query index): what a backend offers to persist the index's base segments (the
// `index_segments` table of both backends): opaque bytes per (workspace, kind, name) with the change
// floor they reflect. The bytes' form is segment-codec.ts's business; the policy is persisted-segments.ts's.

/** A node table (name '') or one property's column. */
export type SegmentKind = 'table' | 'column';

export interface StoredSegment {
  /** The change sequence the segment reflects: every change up to it is in it (see ColumnSource.changeFloor). */
  readonly floor: number;
  readonly format: number;
  readonly data: Buffer;
}

/** The change events after a sequence, summed up without reading their node lists. */
export interface ChangesAfter {
  /** Events of every workspace (what catching up from the sequence reads). */
  readonly events: number;
  /** Node entries of this workspace's events (truncated ones count their operations). */
  readonly nodes: number;
  /** One of this workspace's events is truncated: what changed is not known. */
  readonly truncated: boolean;
}

export interface IndexSegmentStore {
  read(workspace: string, kind: SegmentKind, name: string): Promise<StoredSegment | undefined>;
  /**
   * Replaces the stored segment in one short transaction of its own (never a content write's: it
   * bumps no generation and records no change), unless one of a newer floor is stored already.
   */
  write(workspace: string, kind: SegmentKind, name: string, segment: StoredSegment): Promise<void>;
  /** The property names whose columns are persisted for the workspace. */
  columnNames(workspace: string): Promise<string[]>;
  changesAfter(sequence: number, workspace: string): Promise<ChangesAfter>;
}

/**
 * The rows of a segment: at most `size` bytes each (each backend's limit on one value in transit;
 * fewer rows mean fewer copies when they are put together again).
 */
export function chunksOf(data: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) out.push(data.subarray(at, at + size));
  return out.length === 0 ? [data] : out;
}
