// HTTP layer: rendered delivery answers kept in memory (LRU bounded by bytes), keyed by request and
// the caller's role set (response-cache-key.ts; when to look up and what to store:
// response-cache-policy.ts). Each answer is stored with the keys of what it read
// (repository/dependencies.ts): a committed change, as the repository's change feed hands it out,
// drops only the answers holding one of the keys it hits; a change of the security configuration or
// of the site drops everything. A hit is one Map lookup and a write: no rendering, no hashing. While
// the store cannot be reached, answers already here are served as possibly stale (stale-if-error).
import type { ChangeBatch } from '../repository/change-follower.js';
import type { ErrorCode } from '../errors.js';
import { changeKeys } from '../repository/dependencies.js';
import { DependencyIndex, RecentDrops } from '../repository/dependency-index.js';
import { stringBytes } from '../cache/byte-lru.js';
import { lookupKey, storedKey, storedKeyBytes } from '../cache/digest-key.js';

export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * What an entry costs besides its strings, body bytes and dependency keys: its Map slot, the entry
 * and answer objects, the error object of a cached 404, the dependency array's header, and the
 * body's Buffer (its object, its ArrayBuffer and the backing store's bookkeeping outside the heap).
 * Measured at about 600 bytes on Node 20 (x64); test/cache/charged-bytes.test.ts holds it to that.
 */
const ENTRY_OVERHEAD = 768;
/** A dependency key in the entry's list: its slot and its string (a letter and a hash). */
const DEPENDENCY_BYTES = 8 + 32;

export interface CachedResponse {
  /** The encoded JSON body. */
  readonly body: Buffer;
  readonly etag: string;
  readonly contentLanguage: string;
  /** Undefined when the endpoint has no `timeToLive`. */
  readonly cacheControl: string | undefined;
  readonly vary: string;
  /**
   * What the answer was rendered for (the endpoint definition object): a hit requires the same one, so
   * a reloaded definition never serves an answer of its previous version.
   */
  readonly owner: object;
  /** Set when the answer is an error that depends on content only (a missing node): sent as errors are. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
  /** The headers of its cache tags (http/cache-tags.ts), when petal.yaml `cdn.tagHeader` asks for them. */
  readonly tagHeaders?: Readonly<Record<string, string>>;
  /**
   * Every header a hit sends with it (tags, ETag, Content-Language, Vary, Cache-Control), built once
   * when it is rendered: a hit hands this object on, it builds none.
   */
  readonly headers: Readonly<Record<string, string>>;
}

interface Entry {
  /** The key it is stored under (digest-key.ts `storedKey`): a look-up's key may hold a whole URL. */
  readonly key: string;
  readonly value: CachedResponse;
  readonly size: number;
  /** When it was stored (ms since the epoch): the `Age` of a stale answer. */
  readonly storedAt: number;
  /** The dependency keys it was stored with. */
  readonly deps: readonly string[];
  /** `#placements` when it was last put at the end of the order. */
  stamp: number;
}

/** An answer served while the store cannot be reached: content may have changed since it was stored. */
export interface StaleResponse {
  readonly value: CachedResponse;
  /** Whole seconds since it was stored. */
  readonly ageSeconds: number;
}

export interface CacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxBytes: number;
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  /** Answers served while the store could not be reached. */
  readonly staleHits: number;
  /** Answers dropped by content changes (not counting those dropped by a whole clear). */
  readonly dropped: number;
  /** Whole clears: configuration changes, and changes whose events could not be read. */
  readonly clears: number;
}

/**
 * Rendered answers by request, bounded by `maxBytes` counted over everything the cache holds: keys
 * (a short request key as a copy of its own, a longer one as its SHA-256 digest), bodies (in Buffers of their
 * own: a pooled one would hold an 8 KB slab), header strings, per-entry objects, and the dependency
 * index (repository/dependency-index.ts).
 */
export class ResponseCache {
  readonly maxBytes: number;
  /** Bodies larger than this are not kept (1/8 of the budget): one answer never empties the cache. */
  readonly maxEntryBytes: number;
  #map = new Map<string, Entry>();
  /** Counts puts at the end of the order (stores and moves): how far back an entry's stamp is. */
  #placements = 0;
  readonly #index = new DependencyIndex<string>();
  readonly #drops = new RecentDrops();
  #bytes = 0;
  /** Increases on every drop: an answer rendered across one is stored only if the drop missed it. */
  #epoch = 0;
  #security: unknown = undefined;
  #site: unknown = undefined;
  #hits = 0;
  #misses = 0;
  #evictions = 0;
  #staleHits = 0;
  #dropped = 0;
  #clears = 0;

  constructor(o: { maxBytes: number }) {
    if (!(o.maxBytes > 0)) throw new RangeError('ResponseCache: maxBytes must be positive');
    this.maxBytes = o.maxBytes;
    this.maxEntryBytes = Math.floor(o.maxBytes / 8);
  }

  /**
   * Called once per request before `get` (after the change feed caught up with the content), with the
   * identity of the security configuration and of the site: when either changed, everything is
   * dropped. Returns the epoch to hand to `set` for an answer rendered from now on.
   */
  observe(security: unknown, site: unknown): number {
    if (security !== this.#security || site !== this.#site) {
      this.clear();
      this.#security = security;
      this.#site = site;
    }
    return this.#epoch;
  }

  /** Applies what the change feed hands out: drops the answers the changes hit (all, on a reset). */
  apply(batch: ChangeBatch): void {
    if (batch.kind === 'reset') return this.clear();
    for (const event of batch.events) {
      const keys = changeKeys(event);
      this.#drops.record(++this.#epoch, keys);
      for (const key of this.#index.hit(keys)) {
        if (this.#remove(key)) this.#dropped++;
      }
    }
  }

  /** A stored answer for a request made while the store is unreachable. */
  getStale(key: string, owner: object): StaleResponse | undefined {
    const entry = this.#map.get(lookupKey(key));
    if (entry === undefined || entry.value.owner !== owner) {
      this.#misses++;
      return undefined;
    }
    this.#staleHits++;
    return { value: entry.value, ageSeconds: Math.max(0, Math.floor((Date.now() - entry.storedAt) / 1000)) };
  }

  get(key: string, owner: object): CachedResponse | undefined {
    const map = this.#map;
    const entry = map.get(lookupKey(key));
    if (entry === undefined || entry.value.owner !== owner) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    // Most recently used last, by re-inserting, but only once it is among the older half: V8's Map keeps
    // a deleted entry in its bucket's chain until the table is rebuilt, so moving a hot answer on every
    // hit made each look-up walk the dead copies of itself (16 µs a hit at 3,000 entries, 40 µs at
    // 10,000, against 0.1 µs). An answer hit is still never among the older half evicted first.
    if (this.#placements - entry.stamp > map.size >>> 1) {
      map.delete(entry.key);
      entry.stamp = this.#placements++;
      map.set(entry.key, entry);
    }
    return entry.value;
  }

  /**
   * Stores an answer rendered since `observe` returned `epoch`, with the keys of what it read;
   * ignored when a drop since then hit one of them (the answer may hold what the change replaced),
   * or when the body is too large.
   */
  set(key: string, value: CachedResponse, epoch: number, deps: readonly string[]): boolean {
    if (value.body.length > this.maxEntryBytes || this.#drops.hitSince(epoch, this.#epoch, deps)) return false;
    const stored = storedKey(key);
    const size = entryBytes(stored, value, deps);
    if (size > this.maxBytes) return false;
    this.#remove(stored);
    const body = value.body;
    // A small Buffer is a view of a shared 8 KB slab: kept, it would keep the whole slab.
    const owned = body.byteOffset === 0 && body.buffer.byteLength === body.length ? value : { ...value, body: ownCopy(body) };
    this.#map.set(stored, { key: stored, value: owned, size, storedAt: Date.now(), deps, stamp: this.#placements++ });
    this.#index.add(stored, deps);
    this.#bytes += size;
    if (this.#bytes + this.#index.bytes > this.maxBytes) {
      for (const k of this.#map.keys()) { // least recently used first
        if (this.#bytes + this.#index.bytes <= this.maxBytes) break;
        this.#remove(k);
        this.#evictions++;
      }
    }
    return this.#map.has(stored); // with its dependency index, it may not have fit after all
  }

  #remove(key: string): boolean {
    const entry = this.#map.get(key);
    if (entry === undefined) return false;
    this.#map.delete(key);
    this.#index.remove(key, entry.deps);
    this.#bytes -= entry.size;
    return true;
  }

  has(key: string): boolean {
    return this.#map.has(lookupKey(key));
  }

  /** Drops every entry (endpoint definitions reloaded, configuration changed, events unreadable). */
  clear(): void {
    this.#map.clear();
    this.#index.clear();
    this.#bytes = 0;
    this.#clears++;
    this.#drops.record(++this.#epoch, undefined);
  }

  stats(): CacheStats {
    return {
      entries: this.#map.size, bytes: this.#bytes + this.#index.bytes, maxBytes: this.maxBytes,
      hits: this.#hits, misses: this.#misses, evictions: this.#evictions, staleHits: this.#staleHits,
      dropped: this.#dropped, clears: this.#clears,
    };
  }
}

/** Estimated bytes of an entry: see ENTRY_OVERHEAD (the index's share is counted by the index). */
function entryBytes(key: string, v: CachedResponse, deps: readonly string[]): number {
  let n = ENTRY_OVERHEAD + storedKeyBytes(key) + v.body.length + stringBytes(v.etag) + stringBytes(v.contentLanguage)
    + stringBytes(v.vary) + deps.length * DEPENDENCY_BYTES;
  if (v.cacheControl !== undefined) n += stringBytes(v.cacheControl);
  if (v.error !== undefined) n += stringBytes(v.error.message);
  if (v.tagHeaders !== undefined) {
    n += 64; // the object
    for (const k in v.tagHeaders) n += 16 + stringBytes(k) + stringBytes(v.tagHeaders[k]!);
  }
  // The headers object: its values are the strings counted above, its keys constants.
  n += 64;
  for (const _ in v.headers) n += 16;
  return n;
}

function ownCopy(body: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(body.length);
  body.copy(copy);
  return copy;
}
