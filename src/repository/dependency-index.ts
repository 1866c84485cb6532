// Which cached entries depend on which keys (repository/dependencies.ts), so that a change finds the
// entries it hits without walking the cache; and the keys the last few changes dropped, so that an
// entry rendered while one was applied is stored only if that change did not hit it.

/**
 * What a key indexed for the first time costs: its slot in the Map (with room for the table to
 * double), its Set (object and smallest table) and its string (a letter and a hash: at most 13
 * one-byte characters). Measured at about 220 bytes on Node 20 (x64).
 */
export const INDEX_KEY_BYTES = 256;
/** What one more entry under a key costs: a slot in its Set, with room for the table to double. */
export const INDEX_ENTRY_BYTES = 48;

export class DependencyIndex<K> {
  readonly #byKey = new Map<string, Set<K>>();
  #bytes = 0;

  /** Estimated bytes of the index itself (not of the entries it points to): its owner's budget counts them. */
  get bytes(): number {
    return this.#bytes;
  }

  add(entry: K, keys: readonly string[]): void {
    for (const key of keys) {
      let entries = this.#byKey.get(key);
      if (entries === undefined) {
        this.#byKey.set(key, (entries = new Set()));
        this.#bytes += INDEX_KEY_BYTES - INDEX_ENTRY_BYTES;
      }
      if (entries.has(entry)) continue;
      entries.add(entry);
      this.#bytes += INDEX_ENTRY_BYTES;
    }
  }

  remove(entry: K, keys: readonly string[]): void {
    for (const key of keys) {
      const entries = this.#byKey.get(key);
      if (entries === undefined || !entries.delete(entry)) continue;
      this.#bytes -= INDEX_ENTRY_BYTES;
      if (entries.size === 0) {
        this.#byKey.delete(key);
        this.#bytes -= INDEX_KEY_BYTES - INDEX_ENTRY_BYTES;
      }
    }
  }

  /** The entries holding any of `keys`. */
  hit(keys: Iterable<string>): Set<K> {
    const out = new Set<K>();
    for (const key of keys) {
      const entries = this.#byKey.get(key);
      if (entries !== undefined) for (const e of entries) out.add(e);
    }
    return out;
  }

  clear(): void {
    this.#byKey.clear();
    this.#bytes = 0;
  }

  /** Distinct keys indexed (for tests and diagnostics). */
  get size(): number {
    return this.#byKey.size;
  }
}

/** Drops remembered: older epochs than these refuse every store (the answer may be hit, unknown). */
const REMEMBERED_DROPS = 64;

/**
 * The keys dropped at each epoch (an epoch per change applied). An answer rendered from epoch `e` on
 * is stored only if no drop after `e` names one of its keys: it read content the drop may postdate.
 */
export class RecentDrops {
  /** Oldest first; `keys` undefined = everything was dropped. */
  readonly #log: { readonly epoch: number; readonly keys: ReadonlySet<string> | undefined }[] = [];

  record(epoch: number, keys: ReadonlySet<string> | undefined): void {
    this.#log.push({ epoch, keys });
    if (this.#log.length > REMEMBERED_DROPS) this.#log.shift();
  }

  /** True when a drop after `epoch` (up to `current`) may have hit an answer of these keys. */
  hitSince(epoch: number, current: number, keys: readonly string[]): boolean {
    if (epoch === current) return false;
    const log = this.#log;
    // Every epoch after `epoch` must still be in the log, or one of the forgotten may have hit.
    if (log.length === 0 || log[0]!.epoch > epoch + 1) return true;
    for (const drop of log) {
      if (drop.epoch <= epoch) continue;
      if (drop.keys === undefined) return true;
      for (const k of keys) if (drop.keys.has(k)) return true;
    }
    return false;
  }
}
