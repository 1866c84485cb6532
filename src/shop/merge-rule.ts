// Shop layer: the login merge rule, shared by both store backends (pure; no I/O).
// 1. The user has no active cart: the anonymous cart becomes theirs.
// 2. The carts are compatible (either has no catalog yet, or both have the same catalog and currency):
//    the anonymous lines are merged into the user's cart (a product in both keeps the larger quantity,
//    as commercetools' MergeWithExistingCustomerCart; new products are appended while the cart has
//    fewer lines than allowed, the rest are left out), the anonymous cart is marked `merged`.
// 3. Otherwise the anonymous cart (what the customer just shopped) becomes the user's active cart and
//    the older user cart is marked `merged`.
import type { CartItemRecord, CartLimits, CartRecord } from './shop-store.js';

export type MergePlan =
  | { readonly kind: 'assign' }
  | { readonly kind: 'mergeInto'; readonly lines: readonly CartItemRecord[]; readonly catalogId: string | null; readonly currency: string | null }
  | { readonly kind: 'replace' };

export function planMerge(anonymous: CartRecord, user: CartRecord | undefined, limits: CartLimits): MergePlan {
  if (user === undefined) return { kind: 'assign' };
  const compatible = user.catalogId === null || anonymous.catalogId === null
    || (user.catalogId === anonymous.catalogId && user.currency === anonymous.currency);
  if (!compatible) return { kind: 'replace' };
  const lines = new Map(user.items.map((i) => [i.productId, i.quantity]));
  for (const i of anonymous.items) {
    const mine = lines.get(i.productId);
    if (mine === undefined && lines.size >= limits.maxLines) continue;
    lines.set(i.productId, Math.min(limits.maxQuantity, Math.max(mine ?? 0, i.quantity)));
  }
  return {
    kind: 'mergeInto',
    lines: [...lines].map(([productId, quantity]) => ({ productId, quantity })),
    catalogId: user.catalogId ?? anonymous.catalogId,
    currency: user.catalogId !== null ? user.currency : anonymous.currency,
  };
}

/** The products of `anonymous` a wishlist holding `mine` can still take, in order, up to `maxItems` in all. */
export function wishlistAdditions(mine: readonly string[], anonymous: readonly string[], maxItems: number): string[] {
  const held = new Set(mine);
  return anonymous.filter((p) => !held.has(p)).slice(0, Math.max(0, maxItems - held.size));
}

/** Whether the cart can be used by `owner` at `now`. */
export function usableBy(cart: { userId: string | null; expiresAt: number }, owner: string | null, now: number): boolean {
  return cart.userId === owner && cart.expiresAt > now;
}
