// Shop layer (records): how units sold are counted against the `stock` of content, shared by both
// store backends (pure; no I/O). See README "Shop API (deprecated)", Orders.

/** A tracked product as the caller's catalog shows it. */
export interface StockLevel {
  readonly productId: string;
  /** The product's `stock` in content: units on hand as imported. */
  readonly onHand: number;
  /** The content generation that catalog was read at (CatalogSnapshot.generation). */
  readonly generation: number;
}

/** What the store records per product: the count units are sold against, and the units sold since. */
export interface StockCount {
  readonly onHand: number;
  readonly sold: number;
  /** The newest content generation that confirmed `onHand`. */
  readonly generation: number;
}

/**
 * The count a sale (or a read) made from `level` goes against. Another `stock` value in content newer
 * than the recorded count is a new count (a restock or stocktake): units sold before it no longer
 * apply. Content as new as the count or older, which an instance whose cached catalog is behind still
 * shows, never restarts it: the recorded count applies. Instances that disagree for a moment so cannot
 * restart the count back and forth, and a count only ever restarts once per content generation.
 */
export function stockCount(row: StockCount | undefined, level: StockLevel): StockCount {
  if (row === undefined || (level.generation > row.generation && level.onHand !== row.onHand)) {
    return { onHand: level.onHand, sold: 0, generation: level.generation };
  }
  return { onHand: row.onHand, sold: row.sold, generation: Math.max(row.generation, level.generation) };
}

export function unitsLeft(count: StockCount): number {
  return Math.max(0, count.onHand - count.sold);
}
