// Shop layer (SQLite): versioned migrations of the shop tables, recorded in shop_schema_migrations so
// they never collide with the content store's own migrations in the same file.
import type Database from 'better-sqlite3';
import { shopMigrations } from './shop-migrations.js';

const MIGRATIONS = shopMigrations({
  text: 'TEXT', integer: 'INTEGER', bigint: 'INTEGER', rowNumber: 'INTEGER PRIMARY KEY', orderNumber: 'INTEGER PRIMARY KEY AUTOINCREMENT', json: 'TEXT',
});

export function migrateShop(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS shop_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of MIGRATIONS) {
    db.transaction(() => {
      if (db.prepare('SELECT 1 FROM shop_schema_migrations WHERE version = ?').get(m.version) !== undefined) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO shop_schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
    }).immediate();
  }
}

