// PostgreSQL backend: applies the versioned migrations in order, the pending ones in one transaction.
// It first takes a transaction-scoped advisory lock, so instances starting together apply each
// migration once: the others wait, then see it recorded and skip it.
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

/**
 * Applies the pending migrations of a set (the content store's, the shop's); returns how many it applied.
 * An open that finds them all applied (nearly every open) reads the applied versions and nothing else;
 * pending ones are applied together, in order, in one transaction (one commit, not one per migration:
 * about a tenth of a second of an import into a new database), all of them or none.
 */
export async function applyMigrations(pool: pg.Pool, set: MigrationSet): Promise<number> {
  const client = await pool.connect();
  try {
    const known = await appliedVersions(client, set.table);
    if (set.migrations.every((m) => known.has(m.version))) return 0;
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [set.lock]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${set.table} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      // Read again under the lock: another instance may have applied them meanwhile.
      const applied = await appliedVersions(client, set.table);
      let count = 0;
      for (const m of set.migrations) {
        if (applied.has(m.version)) continue;
        await client.query(m.sql);
        await client.query(`INSERT INTO ${set.table} (version, name) VALUES ($1, $2)`, [m.version, m.name]);
        count++;
      }
      await client.query('COMMIT');
      return count;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    client.release();
  }
}

/**
 * The versions recorded in `table` (none when it does not exist yet), looked for where CREATE TABLE
 * puts it (the first schema of the search_path), not wherever the search_path finds one.
 */
async function appliedVersions(client: pg.PoolClient, table: string): Promise<Set<number>> {
  const { rows: [found] } = await client.query<{ name: string | null }>(
    'SELECT to_regclass(quote_ident(current_schema()) || \'.\' || $1)::text AS name', [table]);
  if (!found?.name) return new Set();
  const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${found.name}`);
  return new Set(rows.map((r) => r.version));
}
