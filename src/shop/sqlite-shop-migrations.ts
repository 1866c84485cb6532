// Shop layer (SQLite): versioned migrations of the shop tables, recorded in shop_schema_migrations so
// they never collide with the content store's own migrations in the same file.
import type Database from 'better-sqlite3';

const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'carts, wishlists, orders, idempotency keys, stock',
    sql: `
      CREATE TABLE shop_carts (
        id TEXT PRIMARY KEY, user_id TEXT, catalog_id TEXT, currency TEXT,
        state TEXT NOT NULL CHECK (state IN ('active', 'ordered', 'merged')),
        version INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX shop_carts_active_user ON shop_carts (user_id) WHERE state = 'active' AND user_id IS NOT NULL;
      CREATE INDEX shop_carts_expires ON shop_carts (expires_at);
      CREATE TABLE shop_cart_items (
        seq INTEGER PRIMARY KEY, cart_id TEXT NOT NULL, product_id TEXT NOT NULL,
        quantity INTEGER NOT NULL CHECK (quantity > 0), UNIQUE (cart_id, product_id)
      );
      CREATE TABLE shop_wishlists (
        id TEXT PRIMARY KEY, user_id TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX shop_wishlists_user ON shop_wishlists (user_id) WHERE user_id IS NOT NULL;
      CREATE TABLE shop_wishlist_items (
        seq INTEGER PRIMARY KEY, wishlist_id TEXT NOT NULL, product_id TEXT NOT NULL, UNIQUE (wishlist_id, product_id)
      );
      CREATE TABLE shop_orders (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, number TEXT UNIQUE,
        cart_id TEXT NOT NULL UNIQUE, user_id TEXT, created_at INTEGER NOT NULL, document TEXT NOT NULL
      );
      CREATE INDEX shop_orders_user ON shop_orders (user_id, seq);
      CREATE TABLE shop_idempotency_keys (
        key TEXT PRIMARY KEY, request_hash TEXT NOT NULL, order_id TEXT NOT NULL, created_at INTEGER NOT NULL
      );
      CREATE TABLE shop_stock (product_id TEXT PRIMARY KEY, on_hand INTEGER NOT NULL, sold INTEGER NOT NULL);
    `,
  },
  {
    version: 2,
    name: 'stock counts remember the content generation that confirmed them',
    sql: 'ALTER TABLE shop_stock ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;',
  },
  {
    version: 3,
    name: 'indexes of the purge of expired carts and wishlists',
    sql: `
      DROP INDEX shop_carts_expires;
      CREATE INDEX shop_carts_unordered_expires ON shop_carts (expires_at) WHERE state <> 'ordered';
      CREATE INDEX shop_wishlists_expires ON shop_wishlists (expires_at);
    `,
  },
];

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

