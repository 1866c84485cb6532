// Shop layer: the versioned migrations of the shop tables, written once for both backends. Only the
// column types differ between them; each backend passes its own spelling and applies the list in its
// own way (shop_schema_migrations, apart from the content store's migrations).

/** A backend's column types, spelled as that backend's migrations have always spelled them. */
export interface ShopColumnTypes {
  readonly text: string;
  readonly integer: string;
  /** Epoch milliseconds and counters that outgrow 32 bits. */
  readonly bigint: string;
  /** An increasing row number that is never reused while the row lives. */
  readonly rowNumber: string;
  /** An increasing row number that is never reused, even after the row is deleted. */
  readonly orderNumber: string;
  readonly json: string;
}

export interface ShopMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export function shopMigrations(t: ShopColumnTypes): readonly ShopMigration[] {
  return [
    {
      version: 1,
      name: 'carts, wishlists, orders, idempotency keys, stock',
      sql: `
      CREATE TABLE shop_carts (
        id ${t.text} PRIMARY KEY, user_id ${t.text}, catalog_id ${t.text}, currency ${t.text},
        state ${t.text} NOT NULL CHECK (state IN ('active', 'ordered', 'merged')),
        version ${t.integer} NOT NULL, created_at ${t.bigint} NOT NULL, updated_at ${t.bigint} NOT NULL, expires_at ${t.bigint} NOT NULL
      );
      CREATE UNIQUE INDEX shop_carts_active_user ON shop_carts (user_id) WHERE state = 'active' AND user_id IS NOT NULL;
      CREATE INDEX shop_carts_expires ON shop_carts (expires_at);
      CREATE TABLE shop_cart_items (
        seq ${t.rowNumber}, cart_id ${t.text} NOT NULL, product_id ${t.text} NOT NULL,
        quantity ${t.integer} NOT NULL CHECK (quantity > 0), UNIQUE (cart_id, product_id)
      );
      CREATE TABLE shop_wishlists (
        id ${t.text} PRIMARY KEY, user_id ${t.text}, created_at ${t.bigint} NOT NULL, updated_at ${t.bigint} NOT NULL, expires_at ${t.bigint} NOT NULL
      );
      CREATE UNIQUE INDEX shop_wishlists_user ON shop_wishlists (user_id) WHERE user_id IS NOT NULL;
      CREATE TABLE shop_wishlist_items (
        seq ${t.rowNumber}, wishlist_id ${t.text} NOT NULL, product_id ${t.text} NOT NULL, UNIQUE (wishlist_id, product_id)
      );
      CREATE TABLE shop_orders (
        seq ${t.orderNumber}, id ${t.text} NOT NULL UNIQUE, number ${t.text} UNIQUE,
        cart_id ${t.text} NOT NULL UNIQUE, user_id ${t.text}, created_at ${t.bigint} NOT NULL, document ${t.json} NOT NULL
      );
      CREATE INDEX shop_orders_user ON shop_orders (user_id, seq);
      CREATE TABLE shop_idempotency_keys (
        key ${t.text} PRIMARY KEY, request_hash ${t.text} NOT NULL, order_id ${t.text} NOT NULL, created_at ${t.bigint} NOT NULL
      );
      CREATE TABLE shop_stock (product_id ${t.text} PRIMARY KEY, on_hand ${t.integer} NOT NULL, sold ${t.integer} NOT NULL);
    `,
    },
    {
      version: 2,
      name: 'stock counts remember the content generation that confirmed them',
      sql: `ALTER TABLE shop_stock ADD COLUMN generation ${t.bigint} NOT NULL DEFAULT 0;`,
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
}
