// Repository layer: decoded subtree reads kept in memory for the current content generation, as
// Oak keeps node bundles: the delivery hot path (Read node, Get children) then costs a map look-up
// instead of a store round trip and a JSON parse per row. Entries are the store's rows before any
// ACL filtering (sessions filter per caller) and are dropped as soon as the generation moves (seen
// exactly as the response cache sees it), so nothing staler than a cached answer is ever served.
import type { ContentStore } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import { ByteLru, stringBytes } from '../cache/byte-lru.js';
import { recordsBytes } from '../store/record-bytes.js';

/** Default budget of the subtree cache (`cache.subtreeMaxBytes`). */
export const DEFAULT_SUBTREE_CACHE_BYTES = 64 * 1024 * 1024;

export interface SubtreeCacheOptions {
  /**
   * Estimated bytes kept over all entries, keys and misses included (default 64 MiB; 0 = no cache).
   * Paths are the caller's choice: a flood of random 404 paths only evicts older entries.
   */
  readonly maxBytes?: number;
  /** Larger subtrees are read every time (default 2,000 rows). */
  readonly maxRowsPerEntry?: number;
}

export class SubtreeCache {
  readonly #store: ContentStore;
  readonly #maxPerEntry: number;
  #generation: number | undefined;
  readonly #entries: ByteLru<string, readonly NodeRecord[]>;

  constructor(store: ContentStore, o: SubtreeCacheOptions = {}) {
    this.#store = store;
    this.#entries = new ByteLru(o.maxBytes ?? DEFAULT_SUBTREE_CACHE_BYTES);
    this.#maxPerEntry = o.maxRowsPerEntry ?? 2_000;
  }

  /** Entries and estimated bytes held (for tests and diagnostics). */
  stats(): { entries: number; bytes: number; maxBytes: number } {
    const { entries, bytes, maxBytes } = this.#entries.stats();
    return { entries, bytes, maxBytes };
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
    if (generation === undefined || this.#entries.maxBytes === 0) return this.#store.getSubtree(workspace, path, depth);
    if (generation !== this.#generation) {
      this.#entries.clear();
      this.#generation = generation;
    }
    const key = `${workspace}\n${depth}\n${path}`;
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit.slice();
    const rows = await this.#store.getSubtree(workspace, path, depth);
    // A write may have committed while the store read: keep the rows only if the generation held.
    if (rows.length <= this.#maxPerEntry && await this.#currentGeneration() === generation && this.#generation === generation) {
      // A miss (no rows) still costs its key: that is what a flood of random paths fills.
      this.#entries.set(key, rows.slice(), stringBytes(key) + recordsBytes(rows));
    }
    return rows;
  }
}
