// Shop layer (PostgreSQL): versioned migrations of the shop tables (shop_schema_migrations), applied
// under an advisory lock so that instances starting together apply each one once.
import type pg from 'pg';

const SHOP_MIGRATION_LOCK = 0x7065_7473; // 'pets'

const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'carts, wishlists, orders, idempotency keys, stock',
    sql: `
      CREATE TABLE shop_carts (
        id text PRIMARY KEY, user_id text, catalog_id text, currency text,
        state text NOT NULL CHECK (state IN ('active', 'ordered', 'merged')),
        version integer NOT NULL, created_at bigint NOT NULL, updated_at bigint NOT NULL, expires_at bigint NOT NULL
      );
      CREATE UNIQUE INDEX shop_carts_active_user ON shop_carts (user_id) WHERE state = 'active' AND user_id IS NOT NULL;
      CREATE INDEX shop_carts_expires ON shop_carts (expires_at);
      CREATE TABLE shop_cart_items (
        seq bigserial PRIMARY KEY, cart_id text NOT NULL, product_id text NOT NULL,
        quantity integer NOT NULL CHECK (quantity > 0), UNIQUE (cart_id, product_id)
      );
      CREATE TABLE shop_wishlists (
        id text PRIMARY KEY, user_id text, created_at bigint NOT NULL, updated_at bigint NOT NULL, expires_at bigint NOT NULL
      );
      CREATE UNIQUE INDEX shop_wishlists_user ON shop_wishlists (user_id) WHERE user_id IS NOT NULL;
      CREATE TABLE shop_wishlist_items (
        seq bigserial PRIMARY KEY, wishlist_id text NOT NULL, product_id text NOT NULL, UNIQUE (wishlist_id, product_id)
      );
      CREATE TABLE shop_orders (
        seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE, number text UNIQUE,
        cart_id text NOT NULL UNIQUE, user_id text, created_at bigint NOT NULL, document jsonb NOT NULL
      );
      CREATE INDEX shop_orders_user ON shop_orders (user_id, seq);
      CREATE TABLE shop_idempotency_keys (
        key text PRIMARY KEY, request_hash text NOT NULL, order_id text NOT NULL, created_at bigint NOT NULL
      );
      CREATE TABLE shop_stock (product_id text PRIMARY KEY, on_hand integer NOT NULL, sold integer NOT NULL);
    `,
  },
  {
    version: 2,
    name: 'stock counts remember the content generation that confirmed them',
    sql: 'ALTER TABLE shop_stock ADD COLUMN generation bigint NOT NULL DEFAULT 0;',
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
