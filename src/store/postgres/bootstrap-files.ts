// PostgreSQL backend: the record of the bootstrap files (store/bootstrap-files.ts). Written inside the
// import's transaction, which holds the import lock (no other writer of any instance records a change
// meanwhile: the newest sequence number is this import's last event). Instances starting together
// check and import one at a time under a session advisory lock (BOOTSTRAP_LOCK) held on a connection
// of its own while the import runs on the pool: the lock ends with that connection, so a start killed
// mid-import leaves no lock behind (and its import, one transaction, rolls back).
import pg from 'pg';
import { BootstrapRaceError, toBootstrapFile, type BootstrapFile, type BootstrapRecords } from '../bootstrap-files.js';
import { guardClient } from './guard-pool.js';
import { run, type Statement } from './statements.js';

/** Migration 11 (see migrations.ts). */
export const BOOTSTRAP_FILES_SQL = `
-- One row per bootstrap file imported: its content hash, when, the change sequence number its import
-- committed at and the node paths it held (JSON: workspace -> paths).
CREATE TABLE bootstrap_files (
  path        text        PRIMARY KEY COLLATE "C",
  sha256      text        NOT NULL,
  imported_at timestamptz NOT NULL DEFAULT now(),
  sequence    bigint      NOT NULL,
  nodes       text        NOT NULL
);
`;

/** Key of the advisory lock around the start-time check-and-import of bootstrap files. */
export const BOOTSTRAP_LOCK = 0x7065_7462; // 'petb'

const s = (name: string, text: string): Statement => ({ name: `petal_b_${name}`, text });
const SQL = {
  after: s('after', 'SELECT count(*)::int AS n FROM changes WHERE seq > $1'),
  upsert: s('upsert', `INSERT INTO bootstrap_files (path, sha256, sequence, nodes)
    VALUES ($1, $2, (SELECT coalesce(max(seq), 0) FROM changes), $3)
    ON CONFLICT (path) DO UPDATE SET sha256 = excluded.sha256, imported_at = now(),
      sequence = excluded.sequence, nodes = excluded.nodes`),
  list: s('list', 'SELECT path, sha256, imported_at, sequence::int8 AS sequence, nodes FROM bootstrap_files ORDER BY path'),
} as const;

/** Inside the import's transaction, after its change events (`ownChanges` of them). */
export async function recordBootstrap(client: pg.PoolClient, records: BootstrapRecords, ownChanges: number): Promise<void> {
  if (records.decidedAt !== undefined) {
    const [row] = await run<{ n: number }>(client, SQL.after, [records.decidedAt]);
    if (row!.n !== ownChanges) throw new BootstrapRaceError();
  }
  for (const f of records.files) await run(client, SQL.upsert, [f.path, f.sha256, JSON.stringify(f.nodes)]);
}

/** `body` with the records, under the bootstrap lock (waiting for another instance's turn to end). */
export async function withBootstrapLock<T>(pool: pg.Pool, body: (recorded: readonly BootstrapFile[]) => Promise<T>): Promise<T> {
  const client = guardClient(new pg.Client(pool.options));
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [BOOTSTRAP_LOCK]);
    const rows = await run<Parameters<typeof toBootstrapFile>[0]>(client, SQL.list);
    return await body(rows.map(toBootstrapFile));
  } finally {
    // Ending the session releases the lock.
    await client.end().catch(() => undefined);
  }
}
