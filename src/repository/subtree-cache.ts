// Repository layer: decoded subtree reads kept in memory, as Oak keeps node bundles: the delivery hot
// path (Read node, Get children) then costs a map look-up instead of a store round trip and a JSON
// parse per row. Entries are the store's rows before any ACL filtering (sessions filter per caller).
// A committed change drops only the entries it can have changed (see `#apply`), as the store's change
// feed reports it; every read first catches up with the feed, so nothing staler than a cached answer
// is ever served.
import type { ContentStore } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import type { ChangeBatch, ChangeFollower } from './change-follower.js';
import type { ChangeEvent } from '../store/changes.js';
import { ByteLru } from '../cache/byte-lru.js';
import { LONGEST_CACHED_PATH, lookupKey, storedKey, storedKeyBytes } from '../cache/digest-key.js';
import { recordsBytes } from '../store/record-bytes.js';
import { ancestorsOf, depthOf } from '../model/paths.js';

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

/**
 * An entry's key text: depth, workspace and path. Both names are the caller's (the Nodes API takes any
 * workspace name), may be slices holding a whole URL, and two bytes a character: an entry is stored
 * under `storedKey` (a copy of its own, or a digest when long), found under `lookupKey` (no digest per
 * read for a short one).
 */
const keyText = (depth: number, workspace: string, path: string): string => `${depth}\n${workspace}\n${path}`;

export class SubtreeCache {
  readonly #store: ContentStore;
  readonly #feed: ChangeFollower;
  readonly #maxPerEntry: number;
  readonly #entries: ByteLru<string, readonly NodeRecord[]>;
  /** The depths entries were read with (few: the endpoints' depths), to find entries by root path. */
  readonly #depths = new Set<number>();
  /** Increases with every change applied: rows read before one are not stored after it. */
  #epoch = 0;

  constructor(store: ContentStore, feed: ChangeFollower, o: SubtreeCacheOptions = {}) {
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
    if (generation === undefined) return this.#store.reads.getSubtree(workspace, path, depth);
    const behind = this.#feed.sync(generation);
    if (behind !== undefined) await behind;
    const text = keyText(depth, workspace, path);
    const hit = this.#entries.get(lookupKey(text));
    if (hit !== undefined) return hit.slice();
    const epoch = this.#epoch;
    const rows = await this.#store.reads.getSubtree(workspace, path, depth);
    // A change applied while the store read may have hit these rows: keep them only if none was.
    // A miss still costs its key and entry (what a flood of random paths fills); an absurd path's miss
    // is not kept at all.
    const keep = rows.length > 0 ? rows.length <= this.#maxPerEntry : path.length <= LONGEST_CACHED_PATH;
    if (keep && epoch === this.#epoch) {
      const key = storedKey(text);
      this.#entries.set(key, rows.slice(), storedKeyBytes(key) + recordsBytes(rows));
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
    // Nodes unnamed (a large import): keys do not tell workspaces apart, so every entry goes.
    if (event.truncated) {
      this.#entries.clear();
      return;
    }
    const paths = new Set<string>();
    for (const list of [event.created, event.changed, event.moved, event.removed]) {
      for (const n of list) {
        paths.add(n.path);
        if (n.from !== undefined) paths.add(n.from);
      }
    }
    const done = new Map<string, number>(); // roots shared by the paths of one event: the least depth dropped
    for (const path of paths) {
      const level = depthOf(path);
      const roots = ['/', ...ancestorsOf(path), path];
      for (const root of roots) {
        const above = level - depthOf(root);
        if ((done.get(root) ?? Infinity) <= above) continue;
        done.set(root, above);
        for (const d of this.#depths) if (d >= above) this.#entries.delete(lookupKey(keyText(d, ws, root)));
      }
    }
  }
}
