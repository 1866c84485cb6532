// SQLite backend: the record of the bootstrap files (store/bootstrap-files.ts), written through an
// import's connection inside its transaction (BEGIN IMMEDIATE: no other writer meanwhile, so the
// newest sequence number is this import's last event).
import type Database from 'better-sqlite3';
import { BootstrapRaceError, toBootstrapFile, type BootstrapFile, type BootstrapRecords } from '../bootstrap-files.js';
import type { ImportConnection } from './import-connection.js';

/** Migration 11 (see migrations.ts). */
export const BOOTSTRAP_FILES_SQL = `
-- One row per bootstrap file imported: its content hash, when, the change sequence number its import
-- committed at and the node paths it held (JSON: workspace -> paths).
CREATE TABLE bootstrap_files (
  path        TEXT    PRIMARY KEY,
  sha256      TEXT    NOT NULL,
  imported_at TEXT    NOT NULL,
  sequence    INTEGER NOT NULL,
  nodes       TEXT    NOT NULL
) WITHOUT ROWID;
`;

const SQL = {
  after: 'SELECT count(*) AS n FROM changes WHERE seq > ?',
  upsert: `INSERT INTO bootstrap_files (path, sha256, imported_at, sequence, nodes)
    VALUES (?, ?, ?, (SELECT coalesce(max(seq), 0) FROM changes), ?)
    ON CONFLICT (path) DO UPDATE SET sha256 = excluded.sha256, imported_at = excluded.imported_at,
      sequence = excluded.sequence, nodes = excluded.nodes`,
  list: 'SELECT path, sha256, imported_at, sequence, nodes FROM bootstrap_files ORDER BY path',
} as const;

/** Inside the import's transaction, after its change events (`ownChanges` of them). */
export async function recordBootstrapVia(db: ImportConnection, records: BootstrapRecords, ownChanges: number): Promise<void> {
  if (records.decidedAt !== undefined) {
    const { n } = (await db.get<{ n: number }>(SQL.after, [records.decidedAt]))!;
    if (n !== ownChanges) throw new BootstrapRaceError();
  }
  const at = new Date().toISOString();
  for (const f of records.files) await db.run(SQL.upsert, [f.path, f.sha256, at, JSON.stringify(f.nodes)]);
}

export function readBootstrapFiles(db: Database.Database): BootstrapFile[] {
  return (db.prepare(SQL.list).all() as Parameters<typeof toBootstrapFile>[0][]).map(toBootstrapFile);
}

/**
 * One check-and-import at a time in this process (one process at a time serves a SQLite file); the
 * records are read when its turn comes.
 */
export class BootstrapTurns {
  #last: Promise<unknown> = Promise.resolve();

  run<T>(db: () => Database.Database, body: (recorded: readonly BootstrapFile[]) => Promise<T>): Promise<T> {
    const turn = this.#last.then(() => body(readBootstrapFiles(db())));
    this.#last = turn.catch(() => undefined);
    return turn;
  }
}
