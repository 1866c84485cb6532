// Shop layer: the rules of changing a cart line, shared by both store backends (pure; no I/O). Each
// backend reads the cart inside its transaction, asks the rule, and writes what the plan says, so the
// limits hold against concurrent changes and the two backends cannot disagree on them.
import { usableBy } from './merge-rule.js';
import type { CartRecord, ChangeItemInput, ChangeItemResult } from './shop-store.js';

/** Whether `cart` exists, is still active and can be used by `owner` at `now`. */
export function isActiveFor(cart: CartRecord | undefined, owner: string | null, now: number): cart is CartRecord {
  return cart !== undefined && cart.state === 'active' && usableBy(cart, owner, now);
}

/** What to write for a change of a line: delete, update or insert it with `quantity`, and whether the
 *  cart takes the product's catalog and currency (it has none yet). */
export interface LineWrite {
  readonly kind: 'write';
  readonly line: 'delete' | 'update' | 'insert';
  readonly quantity: number;
  readonly fixCatalog: boolean;
}

export type ItemChangePlan = Exclude<ChangeItemResult, { kind: 'ok' }> | LineWrite;

/** The refusal of `c` on `cart` (read in the writing transaction), or the line write that applies it. */
export function planItemChange(cart: CartRecord | undefined, c: ChangeItemInput): ItemChangePlan {
  if (!isActiveFor(cart, c.owner, c.now)) return { kind: 'cartNotFound' };
  if (cart.catalogId !== null && cart.catalogId !== c.catalogId) return { kind: 'catalogMismatch' };
  const line = cart.items.find((i) => i.productId === c.productId);
  const quantity = c.mode === 'add' ? (line?.quantity ?? 0) + c.quantity : c.quantity;
  if (c.mode === 'set' && !line) return { kind: 'itemNotFound' };
  if (quantity > c.limits.maxQuantity) return { kind: 'limit' };
  if (!line && cart.items.length >= c.limits.maxLines) return { kind: 'tooManyLines' };
  return { kind: 'write', line: quantity === 0 ? 'delete' : line ? 'update' : 'insert', quantity, fixCatalog: cart.catalogId === null };
}
