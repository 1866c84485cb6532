// Shop layer (PostgreSQL): versioned migrations of the shop tables (shop_schema_migrations), applied
// under an advisory lock so that instances starting together apply each one once.
import type pg from 'pg';
import { shopMigrations } from './shop-migrations.js';

const SHOP_MIGRATION_LOCK = 0x7065_7473; // 'pets'

const MIGRATIONS = shopMigrations({
  text: 'text', integer: 'integer', bigint: 'bigint', rowNumber: 'bigserial PRIMARY KEY', orderNumber: 'bigserial PRIMARY KEY', json: 'jsonb',
});

export async function migrateShop(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    for (const m of MIGRATIONS) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [SHOP_MIGRATION_LOCK]);
        await client.query('CREATE TABLE IF NOT EXISTS shop_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
        const done = await client.query('SELECT 1 FROM shop_schema_migrations WHERE version = $1', [m.version]);
        if (done.rowCount === 0) {
          await client.query(m.sql);
          await client.query('INSERT INTO shop_schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
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
}
