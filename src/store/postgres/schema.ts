// PostgreSQL backend: applies the versioned migrations in order, each in its own transaction. Every
// transaction first takes a transaction-scoped advisory lock, so instances starting together apply
// each migration once: the others wait, then see it recorded and skip it.
import type pg from 'pg';
import { MIGRATIONS, MIGRATION_LOCK } from './migrations.js';

/** Applies the content store's pending migrations; returns how many it applied. */
export function migrate(pool: pg.Pool): Promise<number> {
  return applyMigrations(pool, { table: 'schema_migrations', lock: MIGRATION_LOCK, migrations: MIGRATIONS });
}

export interface MigrationSet {
  /** The table that records which versions are applied. */
  readonly table: string;
  /** The key of the advisory lock taken in each migration's transaction. */
  readonly lock: number;
  readonly migrations: readonly { readonly version: number; readonly name: string; readonly sql: string }[];
}

/** Applies the pending migrations of a set (the content store's, the shop's); returns how many it applied. */
export async function applyMigrations(pool: pg.Pool, set: MigrationSet): Promise<number> {
  const client = await pool.connect();
  let count = 0;
  try {
    for (const m of set.migrations) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [set.lock]);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${set.table} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
        );
        const done = await client.query(`SELECT 1 FROM ${set.table} WHERE version = $1`, [m.version]);
        if (done.rowCount === 0) {
          await client.query(m.sql);
          await client.query(`INSERT INTO ${set.table} (version, name) VALUES ($1, $2)`, [m.version, m.name]);
          count++;
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }
  } finally {
    client.release();
  }
  return count;
}
