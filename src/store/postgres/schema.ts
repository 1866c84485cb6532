// PostgreSQL backend: applies the versioned migrations in order, each in its own transaction. Every
// transaction first takes a transaction-scoped advisory lock, so instances starting together apply
// each migration once: the others wait, then see it recorded and skip it.
import type pg from 'pg';
import { MIGRATIONS, MIGRATION_LOCK } from './migrations.js';

/** Applies the pending migrations; returns how many it applied. */
export async function migrate(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  let count = 0;
  try {
    for (const m of MIGRATIONS) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        await client.query(
          'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
        );
        const done = await client.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
        if (done.rowCount === 0) {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
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
