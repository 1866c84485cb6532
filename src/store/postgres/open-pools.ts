// PostgreSQL backend: the connections of a store. The schema is created (under the migration lock:
// instances starting together would otherwise race on the catalog) before any connection uses it as
// its search_path; the primary pool is migrated; replicas get pools of their own.
import pg from 'pg';
import { guardClient, guardPool } from './guard-pool.js';
import { MIGRATION_LOCK } from './migrations.js';
import { migrate } from './schema.js';

export interface PoolOptions {
  readonly url: string;
  readonly schema?: string;
  readonly replicas?: readonly string[];
  readonly max?: number;
  readonly connectionTimeoutMs?: number;
}

export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

export async function openPools(o: PoolOptions): Promise<{ pool: pg.Pool; replicas: pg.Pool[]; settings: pg.ClientConfig }> {
  const schema = o.schema;
  if (schema !== undefined) {
    const setup = guardClient(new pg.Client({ connectionString: o.url }));
    await setup.connect();
    try {
      await setup.query('BEGIN');
      await setup.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await setup.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await setup.query('COMMIT');
    } finally {
      await setup.end();
    }
  }
  // (Settings in a URL win over these, e.g. `?options=-c search_path=…`.)
  const settings = (url: string): pg.PoolConfig => ({
    connectionString: url,
    ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
  });
  // A lost connection (server restart, failover, terminated backend, network) must not crash the
  // process, whether its client is idle or held by a request: see guard-pool.ts.
  const newPool = (url: string, extra: pg.PoolConfig = {}): pg.Pool =>
    guardPool(new pg.Pool({ ...settings(url), max: o.max ?? 10, ...extra }));
  const pool = newPool(o.url, { connectionTimeoutMillis: o.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS });
  try {
    await migrate(pool);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  // A replica that cannot be reached must not hold reads up: they fall back to the primary.
  const replicas = (o.replicas ?? []).map((url) => newPool(url, { connectionTimeoutMillis: 5_000 }));
  return { pool, replicas, settings: settings(o.url) };
}
