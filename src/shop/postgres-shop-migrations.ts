// Shop layer (PostgreSQL): versioned migrations of the shop tables (shop_schema_migrations), applied
// under an advisory lock so that instances starting together apply each one once.
import type pg from 'pg';
import { shopMigrations } from './shop-migrations.js';
import { applyMigrations } from '../store/postgres/schema.js';

const SHOP_MIGRATION_LOCK = 0x7065_7473; // 'pets'

const MIGRATIONS = shopMigrations({
  text: 'text', integer: 'integer', bigint: 'bigint', rowNumber: 'bigserial PRIMARY KEY', orderNumber: 'bigserial PRIMARY KEY', json: 'jsonb',
});

export async function migrateShop(pool: pg.Pool): Promise<void> {
  await applyMigrations(pool, { table: 'shop_schema_migrations', lock: SHOP_MIGRATION_LOCK, migrations: MIGRATIONS });
}
