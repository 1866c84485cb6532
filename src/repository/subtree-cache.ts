// Repository layer: decoded subtree reads kept in memory, as Oak keeps node bundles: the delivery hot
// path (Read node, Get children) then costs a map look-up instead of a store round trip and a JSON
// parse per row. Entries are the store's rows before any ACL filtering (sessions filter per caller).
// A committed change drops only the entries it can have changed (see `#apply`), as the store's change
// feed reports it; every read first catches up with the feed, so nothing staler than a cached answer
// is ever served.
import type { ContentStore } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import type { ChangeBatch, ChangeFeed } from '../store/change-feed.js';
import type { ChangeEvent } from '../store/changes.js';
import { ByteLru, stringBytes } from '../cache/byte-lru.js';
import { recordsBytes } from '../store/record-bytes.js';
import { ancestorsOf, depthOf } from './paths.js';

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

const keyOf = (workspace: string, depth: number, path: string): string => `${workspace}\n${depth}\n${path}`;

export class SubtreeCache {
  readonly #store: ContentStore;
  readonly #feed: ChangeFeed;
  readonly #maxPerEntry: number;
  readonly #entries: ByteLru<string, readonly NodeRecord[]>;
  /** The depths entries were read with (few: the endpoints' depths), to find entries by root path. */
  readonly #depths = new Set<number>();
  /** Increases with every change applied: rows read before one are not stored after it. */
  #epoch = 0;

  constructor(store: ContentStore, feed: ChangeFeed, o: SubtreeCacheOptions = {}) {
    this.#store = store;
    this.#feed = feed;
    this.#entries = new ByteLru(o.maxBytes ?? DEFAULT_SUBTREE_CACHE_BYTES);
    this.#maxPerEntry = o.maxRowsPerEntry ?? 2_000;
    feed.subscribe((batch) => this.#apply(batch));
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
    const generation = this.#entries.maxBytes === 0 ? undefined : await this.#currentGeneration();
    if (generation === undefined) return this.#store.getSubtree(workspace, path, depth);
    const behind = this.#feed.sync(generation);
    if (behind !== undefined) await behind;
    const key = keyOf(workspace, depth, path);
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit.slice();
    const epoch = this.#epoch;
    const rows = await this.#store.getSubtree(workspace, path, depth);
    // A change applied while the store read may have hit these rows: keep them only if none was.
    if (rows.length <= this.#maxPerEntry && epoch === this.#epoch) {
      // A miss (no rows) still costs its key: that is what a flood of random paths fills.
      this.#entries.set(key, rows.slice(), stringBytes(key) + recordsBytes(rows));
      this.#depths.add(depth);
    }
    return rows;
  }

  #apply(batch: ChangeBatch): void {
    this.#epoch++;
    if (batch.kind === 'reset') {
      this.#entries.clear();
      this.#depths.clear();
      return;
    }
    for (const event of batch.events) this.#applyEvent(event);
  }

  /**
   * An entry (root R, depth d) holds R and its descendants down to d levels: a change of node P (or
   * of its old path F) hits the entries rooted at P or at an ancestor of P at most d levels above it
   * (the root `/` included). O(depth of P × depths in use) per node.
   */
  #applyEvent(event: ChangeEvent): void {
    const ws = event.workspace;
    if (event.truncated) {
      const prefix = `${ws}\n`;
      for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#entries.delete(key);
      return;
    }
    const paths = new Set<string>();
    for (const list of [event.created, event.changed, event.moved, event.removed]) {
      for (const n of list) {
        paths.add(n.path);
        if (n.from !== undefined) paths.add(n.from);
      }
    }
    for (const path of paths) {
      const level = depthOf(path);
      const roots = ['/', ...ancestorsOf(path), path];
      for (const root of roots) {
        const above = level - depthOf(root);
        for (const d of this.#depths) if (d >= above) this.#entries.delete(keyOf(ws, d, root));
      }
    }
  }
}
