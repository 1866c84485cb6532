// A process killed (SIGKILL) in the middle of POST /order leaves either a complete order and an ordered
// cart, or no order and an intact cart: never an order without an ordered cart, nor the reverse.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { createShopApp, IDS, ShopClient } from './helpers.js';

const CHILD = join(import.meta.dirname, 'crash-child.ts');

let t: TestApp;
beforeEach(async () => { t = await createShopApp(); });
afterEach(async () => { await t.close(); });

function storeArg(): string {
  if (t.store instanceof SqliteStore) return `sqlite:${t.store.databaseFile}`;
  if (t.store instanceof PostgresStore) return `${process.env.PETAL_TEST_PG}#${t.store.schema}`;
  throw new Error('unknown store');
}

async function waitFor(marker: string, child: ChildProcess, want: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  while (!(existsSync(marker) && readFileSync(marker, 'utf8') === want)) {
    if (child.exitCode !== null) throw new Error(`child exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`child never reached ${want}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function killAt(point: 'inside' | 'after'): Promise<{ cartId: string; before: any }> {
  const alice = new ShopClient(t, 'alice');
  await alice.post('/cart');
  await alice.post('/cart/item', { productId: IDS.lavender, quantity: 2 });
  const before = (await alice.get('/cart')).body;
  const marker = join(t.dir, `marker-${point}`);
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, storeArg(), before.id, 'alice', point, marker], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    await waitFor(marker, child, point);
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  return { cartId: before.id, before };
}

describe(`crash in POST /order (${process.env.PETAL_TEST_PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('killed inside the transaction: no order, the cart intact and still orderable', async () => {
    const { cartId, before } = await killAt('inside');
    const store = t.shopStore!;
    expect((await store.ordersOf('alice', 10, 0)).total).toBe(0);
    const cart = await store.getCart(cartId);
    expect(cart).toMatchObject({ state: 'active', version: before.version, items: [{ productId: IDS.lavender, quantity: 2 }] });
    const left = await store.available([{ productId: IDS.lavender, onHand: 48, generation: await t.store.generation() }]);
    expect(left.get(IDS.lavender)).toBe(48);
    // The shop goes on: the same cart can be ordered now.
    const alice = new ShopClient(t, 'alice');
    const r = await alice.post('/order', { billingAddress: ADDR, shippingAddress: ADDR, shippingMethodId: IDS.standard });
    expect(r.status).toBe(201);
  }, 180_000);

  it('killed right after the commit: the complete order and the ordered cart', async () => {
    const { cartId } = await killAt('after');
    const store = t.shopStore!;
    const orders = await store.ordersOf('alice', 10, 0);
    expect(orders.total).toBe(1);
    expect(orders.orders[0]).toMatchObject({ cartId, document: { items: [{ productId: IDS.lavender, quantity: 2 }] } });
    expect((await store.getCart(cartId))?.state).toBe('ordered');
    expect((await store.available([{ productId: IDS.lavender, onHand: 48, generation: await t.store.generation() }])).get(IDS.lavender)).toBe(46);
  }, 180_000);
});

const ADDR = { firstName: 'Ada', lastName: 'Lovelace', street: 'Gartenweg 1', postalCode: '10115', city: 'Berlin', country: 'DE' };
