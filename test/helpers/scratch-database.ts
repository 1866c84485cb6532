// Test helper: a PostgreSQL database of its own for tests that make the database fail (terminate its
// backends, refuse connections). Created from the admin database `postgres` of the server named by
// PETAL_TEST_PG, named after that database, and dropped afterwards: other test files, which share the
// PETAL_TEST_PG database, never see the faults.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ScratchDatabase {
  /** Connection string of the scratch database. */
  readonly url: string;
  readonly name: string;
  /**
   * Terminates the backends of the scratch database (all, or all but those whose application_name
   * starts with `sparePrefix`); returns how many were terminated.
   */
  terminateBackends(sparePrefix?: string): Promise<number>;
  /** `ALTER DATABASE … ALLOW_CONNECTIONS` on the scratch database. */
  allowConnections(allow: boolean): Promise<void>;
  /** Drops the database (with its remaining connections). */
  drop(): Promise<void>;
}

/** The scratch database, or undefined without PETAL_TEST_PG. */
export async function createScratchDatabase(): Promise<ScratchDatabase | undefined> {
  const base = process.env.PETAL_TEST_PG;
  if (base === undefined || base === '') return undefined;
  const baseUrl = new URL(base);
  const baseName = decodeURIComponent(baseUrl.pathname.slice(1)) || 'petal';
  const suffix = `_fault_${randomBytes(4).toString('hex')}`;
  const name = `${baseName.replace(/[^a-z0-9_]/gi, '_').slice(0, 63 - suffix.length)}${suffix}`.toLowerCase();
  const adminUrl = new URL(baseUrl);
  adminUrl.pathname = '/postgres';
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;

  const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: adminUrl.toString() });
    c.on('error', () => undefined);
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end().catch(() => undefined);
    }
  };
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: url.toString(),
    name,
    terminateBackends: (sparePrefix) => admin(async (c) => {
      const { rows } = await c.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
           AND ($2::text IS NULL OR NOT starts_with(application_name, $2))`, [name, sparePrefix ?? null]);
      return rows.filter((r) => r.ok).length;
    }),
    allowConnections: (allow) => admin(async (c) => {
      await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${allow ? 'true' : 'false'}`);
    }),
    drop: () => admin(async (c) => {
      await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }),
  };
}
