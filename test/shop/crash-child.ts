// Child process of crash.test.ts: places the order of one cart through the order service (the code of
// POST /order) and signals the parent at a chosen point, where the parent kills it with SIGKILL.
//   argv: <store: sqlite:<file> | postgres://…#<schema>> <cartId> <user> <point: inside | after> <marker file>
import { writeFileSync } from 'node:fs';
import { createShopStore } from '../../src/main.js';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { Repository } from '../../src/repository/session.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { SecurityService } from '../../src/security/security-service.js';
import { ShopService } from '../../src/shop/shop-api.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ContentStore } from '../../src/store/content-store.js';

const [storeArg, cartId, user, point, marker] = process.argv.slice(2) as [string, string, string, 'inside' | 'after', string];

function block(): void {
  // Waits without returning to the event loop (inside a synchronous SQLite transaction).
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
}

const store: ContentStore = storeArg.startsWith('sqlite:')
  ? new SqliteStore({ file: storeArg.slice('sqlite:'.length) })
  : new PostgresStore({ url: storeArg.slice(0, storeArg.lastIndexOf('#')), schema: storeArg.slice(storeArg.lastIndexOf('#') + 1) });
await store.open();
const shopStore = await createShopStore(store, {
  hooks: {
    beforeOrderCommit: point === 'inside'
      ? () => {
        writeFileSync(marker, 'inside');
        if (store.capabilities.name === 'sqlite') block();
        else return new Promise<void>(() => undefined); // never commits
      }
      : undefined,
  },
});
await shopStore.open();
const read = [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }];
const ws = ['shopCatalogs', 'shopCategories', 'shopProducts', 'shopCurrencies', 'shopShippingMethods'];
const security = new SecurityService(loadSecurity({ roles: { anonymous: { workspacePermissions: Object.fromEntries(ws.map((w) => [w, read])) } } }, process.cwd()));
const shop = new ShopService(new Repository(store, new NodeTypeRegistry()), security, shopStore);
const caller = { ...security.anonymous(), user, via: 'basic' as const };
const address = { firstName: 'Ada', lastName: 'Lovelace', street: 'Gartenweg 1', postalCode: '10115', city: 'Berlin', country: 'DE' };
await shop.orders.placeOrder(shop.context(caller, { cartId }), {
  billingAddress: address, shippingAddress: address, shippingMethodId: '5e1a0000-0000-4000-8000-000000000001',
});
writeFileSync(marker, 'after');
block();
