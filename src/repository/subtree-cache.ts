// Repository layer: decoded subtree reads kept in memory for the current content generation, as
// Oak keeps node bundles: the delivery hot path (Read node, Get children) then costs a map look-up
// instead of a store round trip and a JSON parse per row. Entries are the store's rows before any
// ACL filtering (sessions filter per caller) and are dropped as soon as the generation moves (seen
// exactly as the response cache sees it), so nothing staler than a cached answer is ever served.
import type { ContentStore } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';

export interface SubtreeCacheOptions {
  /** Rows kept over all entries (default 200,000). */
  readonly maxRows?: number;
  /** Larger subtrees are read every time (default 2,000 rows). */
  readonly maxRowsPerEntry?: number;
}

export class SubtreeCache {
  readonly #store: ContentStore;
  readonly #maxRows: number;
  readonly #maxPerEntry: number;
  #generation: number | undefined;
  // Insertion order is recency order: a hit re-inserts its entry.
  #entries = new Map<string, readonly NodeRecord[]>();
  #rows = 0;

  constructor(store: ContentStore, o: SubtreeCacheOptions = {}) {
    this.#store = store;
    this.#maxRows = o.maxRows ?? 200_000;
    this.#maxPerEntry = o.maxRowsPerEntry ?? 2_000;
  }

  /**
   * The current generation without a round trip where possible. A store whose writers announce
   * themselves (PostgreSQL) is trusted only through its hint: without one, other instances' writes
   * could be missed, so nothing is cached. An embedded store answers the generation itself cheaply.
   */
  async #currentGeneration(): Promise<number | undefined> {
    const hint = this.#store.generationHint?.();
    if (hint !== undefined || this.#store.capabilities.notifyOnWrite) return hint;
    return this.#store.generation();
  }

  async getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]> {
    const generation = await this.#currentGeneration();
    if (generation === undefined || this.#maxRows === 0) return this.#store.getSubtree(workspace, path, depth);
    if (generation !== this.#generation) {
      this.#entries.clear();
      this.#rows = 0;
      this.#generation = generation;
    }
    const key = `${workspace}\n${depth}\n${path}`;
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.slice();
    }
    const rows = await this.#store.getSubtree(workspace, path, depth);
    // A write may have committed while the store read: keep the rows only if the generation held.
    if (rows.length <= this.#maxPerEntry && await this.#currentGeneration() === generation && this.#generation === generation) {
      this.#entries.set(key, rows.slice());
      this.#rows += rows.length;
      for (const [k, v] of this.#entries) {
        if (this.#rows <= this.#maxRows) break;
        this.#entries.delete(k);
        this.#rows -= v.length;
      }
    }
    return rows;
  }
}
