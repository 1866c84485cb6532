// The rule of changing a cart line (src/shop/cart-rules.ts), which both store backends apply inside
// their transactions: refusals in their order, and which write a change becomes.
import { describe, expect, it } from 'vitest';
import { isActiveFor, planItemChange } from '../../src/shop/cart-rules.js';
import type { CartRecord, ChangeItemInput } from '../../src/shop/shop-store.js';

const cart = (over: Partial<CartRecord> = {}): CartRecord => ({
  id: 'c1', userId: null, catalogId: 'cat', currency: 'EUR', state: 'active', version: 1,
  createdAt: 0, updatedAt: 0, expiresAt: 1000, items: [{ productId: 'p1', quantity: 2 }], ...over,
});
const change = (over: Partial<ChangeItemInput> = {}): ChangeItemInput => ({
  cartId: 'c1', owner: null, productId: 'p1', mode: 'add', quantity: 1, limits: { maxQuantity: 5, maxLines: 2 },
  catalogId: 'cat', currency: 'EUR', now: 10, ttlMs: 100, ...over,
});

describe('planItemChange', () => {
  it('refuses a missing, ordered, expired or foreign cart as cartNotFound', () => {
    expect(planItemChange(undefined, change())).toEqual({ kind: 'cartNotFound' });
    expect(planItemChange(cart({ state: 'ordered' }), change())).toEqual({ kind: 'cartNotFound' });
    expect(planItemChange(cart({ expiresAt: 10 }), change())).toEqual({ kind: 'cartNotFound' });
    expect(planItemChange(cart({ userId: 'u' }), change())).toEqual({ kind: 'cartNotFound' });
  });

  it('refuses another catalog, setting an absent line, a quantity over the limit and one line too many', () => {
    expect(planItemChange(cart(), change({ catalogId: 'other' }))).toEqual({ kind: 'catalogMismatch' });
    expect(planItemChange(cart(), change({ mode: 'set', productId: 'p2' }))).toEqual({ kind: 'itemNotFound' });
    expect(planItemChange(cart(), change({ quantity: 4 }))).toEqual({ kind: 'limit' });
    const full = cart({ items: [{ productId: 'p1', quantity: 1 }, { productId: 'p2', quantity: 1 }] });
    expect(planItemChange(full, change({ productId: 'p3' }))).toEqual({ kind: 'tooManyLines' });
    expect(planItemChange(full, change({ productId: 'p2' }))).toMatchObject({ kind: 'write', line: 'update', quantity: 2 });
  });

  it('adds to a held line, inserts a new one, deletes on set 0, and fixes the catalog of a cart without one', () => {
    expect(planItemChange(cart(), change({ quantity: 3 }))).toEqual({ kind: 'write', line: 'update', quantity: 5, fixCatalog: false });
    expect(planItemChange(cart(), change({ productId: 'p2' }))).toEqual({ kind: 'write', line: 'insert', quantity: 1, fixCatalog: false });
    expect(planItemChange(cart(), change({ mode: 'set', quantity: 0 }))).toEqual({ kind: 'write', line: 'delete', quantity: 0, fixCatalog: false });
    expect(planItemChange(cart({ catalogId: null, items: [] }), change({ catalogId: 'any' })))
      .toEqual({ kind: 'write', line: 'insert', quantity: 1, fixCatalog: true });
  });

  it('isActiveFor: an active cart of this owner before it expires', () => {
    expect(isActiveFor(cart(), null, 999)).toBe(true);
    expect(isActiveFor(cart({ state: 'merged' }), null, 0)).toBe(false);
    expect(isActiveFor(cart(), 'u', 0)).toBe(false);
  });
});
