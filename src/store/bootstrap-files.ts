// Store layer: what the start-time import of `content:` files (ingest/bootstrap.ts) remembers of each
// file it imported, so that an unchanged file is not imported again and a changed one knows which of
// its nodes writes changed since. Recorded in the import's own transaction (ImportOptions.bootstrap):
// a start killed mid-import leaves neither the nodes nor the record.

/** The nodes a file held when it was imported, by workspace: their paths. */
export type BootstrapNodes = Readonly<Record<string, readonly string[]>>;

export interface BootstrapFile {
  /** Relative to the config file's folder (absolute when outside it). */
  readonly path: string;
  /** SHA-256 of the file's bytes, hex. */
  readonly sha256: string;
  /** ISO 8601 instant of the import. */
  readonly importedAt: string;
  /** The newest change event's sequence number when the import committed (its own events included). */
  readonly sequence: number;
  readonly nodes: BootstrapNodes;
}

export interface NewBootstrapFile {
  readonly path: string;
  readonly sha256: string;
  readonly nodes: BootstrapNodes;
}

export interface BootstrapRecords {
  readonly files: readonly NewBootstrapFile[];
  /**
   * The newest change event the caller read when it decided what to write: when another write
   * committed since, the import rolls back with a BootstrapRaceError (the caller decides again), so
   * that a write made meanwhile by another instance is never overwritten unseen.
   */
  readonly decidedAt?: number;
}

export class BootstrapRaceError extends Error {
  constructor() {
    super('content was written while the bootstrap import was prepared');
    this.name = 'BootstrapRaceError';
  }
}

/** A stored row (both backends) as a BootstrapFile. */
export function toBootstrapFile(row: { path: string; sha256: string; imported_at: string | Date; sequence: number | string; nodes: string }): BootstrapFile {
  return {
    path: row.path, sha256: row.sha256,
    importedAt: row.imported_at instanceof Date ? row.imported_at.toISOString() : row.imported_at,
    sequence: Number(row.sequence), nodes: JSON.parse(row.nodes) as BootstrapNodes,
  };
}
