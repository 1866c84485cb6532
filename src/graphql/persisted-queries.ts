// GraphQL layer: persisted queries. Automatic ones follow Apollo's protocol (a client sends
// `extensions.persistedQuery = { version: 1, sha256Hash }` alone, and the query with it once the
// server answers PersistedQueryNotFound), held in a bounded LRU because clients choose them; named
// ones come from light modules (named-queries.ts), are never evicted and answer to their sha256 too.
import { createHash } from 'node:crypto';
import { ByteLru, stringBytes } from '../cache/byte-lru.js';

export { loadNamedQueries, MAX_NAMED_QUERY_BYTES, type NamedQuery, type NamedQueryProblem } from './named-queries.js';

export type PersistedQueryErrorCode =
  | 'PERSISTED_QUERY_NOT_FOUND'
  | 'PERSISTED_QUERY_NOT_SUPPORTED'
  | 'PERSISTED_QUERY_HASH_MISMATCH'
  | 'PERSISTED_QUERY_INVALID'
  | 'QUERY_MISSING';

export class PersistedQueryError extends Error {
  readonly code: PersistedQueryErrorCode;

  constructor(code: PersistedQueryErrorCode, message: string) {
    super(message);
    this.name = 'PersistedQueryError';
    this.code = code;
  }
}

/** Lower-case hex, as Apollo's clients send it. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

export const DEFAULT_PERSISTED_QUERIES = Object.freeze({ maxEntries: 1000, maxBytes: 4 * 1024 * 1024 });

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}

function mismatch(hash: string, actual: string): PersistedQueryError {
  return new PersistedQueryError('PERSISTED_QUERY_HASH_MISMATCH', `persistedQuery.sha256Hash ${hash} is not the SHA-256 of the query (${actual})`);
}

export class PersistedQueries {
  /** sha256 → query text, registered by clients; bounded in entries and bytes. */
  readonly #automatic: ByteLru<string, string>;
  readonly #maxEntries: number;
  readonly #named = new Map<string, string>();
  /** sha256 → query text of the named queries. */
  #namedByHash = new Map<string, string>();

  constructor(options: { maxEntries?: number; maxBytes?: number } = {}) {
    this.#maxEntries = positive('maxEntries', options.maxEntries ?? DEFAULT_PERSISTED_QUERIES.maxEntries);
    this.#automatic = new ByteLru(positive('maxBytes', options.maxBytes ?? DEFAULT_PERSISTED_QUERIES.maxBytes));
  }

  /** The query of this sha256, named or registered (a registered one becomes the most recently used). */
  lookup(sha256Hash: string): string | undefined {
    const hash = sha256Hash.toLowerCase();
    return this.#namedByHash.get(hash) ?? this.#automatic.get(hash);
  }

  /** Only a named query: what a client may run by hash when automatic persisted queries are off. */
  lookupNamed(sha256Hash: string): string | undefined {
    return this.#namedByHash.get(sha256Hash.toLowerCase());
  }

  /**
   * Keeps a client's query under its sha256, evicting the least recently used past the bounds (a
   * query larger than the byte bound alone is not kept; the client just sends it again).
   */
  register(sha256Hash: string, query: string): void {
    if (!SHA256_HEX.test(sha256Hash)) throw new PersistedQueryError('PERSISTED_QUERY_INVALID', 'persistedQuery.sha256Hash must be 64 hexadecimal digits');
    const hash = sha256Hash.toLowerCase();
    const actual = sha256Hex(query);
    if (actual !== hash) throw mismatch(hash, actual);
    if (!this.#namedByHash.has(hash)) this.#keep(hash, query);
  }

  /** A named query from a module: never evicted; the same name again replaces it. */
  addNamed(name: string, query: string): void {
    const replaced = this.#named.has(name);
    this.#named.set(name, query);
    if (replaced) this.#namedByHash = new Map([...this.#named.values()].map((q) => [sha256Hex(q), q]));
    else this.#namedByHash.set(sha256Hex(query), query);
  }

  byName(name: string): string | undefined {
    return this.#named.get(name);
  }

  /** Takes the queries clients registered with `previous` (from before a reload), keeping their order of use. */
  adoptAutomatic(previous: PersistedQueries): void {
    if (previous === this) return;
    for (const hash of [...previous.#automatic.keys()]) {
      const query = previous.#automatic.peek(hash);
      if (query !== undefined && !this.#namedByHash.has(hash)) this.#keep(hash, query);
    }
  }

  stats(): { named: number; automatic: number; automaticBytes: number; evictions: number } {
    const lru = this.#automatic.stats();
    return { named: this.#named.size, automatic: lru.entries, automaticBytes: lru.bytes, evictions: lru.evictions };
  }

  #keep(hash: string, query: string): void {
    this.#automatic.set(hash, query, stringBytes(hash) + stringBytes(query));
    while (this.#automatic.size > this.#maxEntries) {
      const oldest = this.#automatic.keys().next();
      if (oldest.done === true) break;
      this.#automatic.delete(oldest.value);
    }
  }
}

export type PersistedResolution = { query: string } | { error: { code: PersistedQueryErrorCode; message: string } };

function failure(code: PersistedQueryErrorCode, message: string): PersistedResolution {
  return { error: { code, message } };
}

/** The persistedQuery extension: absent, a valid hash (lower case), or what is wrong with it. */
function persistedHash(extensions: unknown): { hash?: string } | { error: string } {
  let value = extensions;
  if (typeof value === 'string') { // over GET, `extensions` is a JSON text in the query string
    try {
      value = JSON.parse(value);
    } catch {
      return { error: 'extensions is not valid JSON' };
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return { error: 'extensions must be a JSON object' };
  const persisted = (value as Record<string, unknown>).persistedQuery;
  if (persisted === undefined || persisted === null) return {};
  if (typeof persisted !== 'object' || Array.isArray(persisted)) return { error: 'extensions.persistedQuery must be an object' };
  const { version, sha256Hash } = persisted as Record<string, unknown>;
  if (version !== 1) return { error: `extensions.persistedQuery.version ${JSON.stringify(version) ?? 'missing'} is not supported (only 1)` };
  if (typeof sha256Hash !== 'string' || !SHA256_HEX.test(sha256Hash)) return { error: 'extensions.persistedQuery.sha256Hash must be 64 hexadecimal digits' };
  return { hash: sha256Hash.toLowerCase() };
}

/**
 * The query text a request asks to run. A query with a hash is checked against it and registered; a
 * hash alone is looked up (PersistedQueryNotFound tells an Apollo client to send the query too); a
 * query alone runs as it is. With `automatic` off, a hash finds only named queries and anything
 * else answers PersistedQueryNotSupported, upon which Apollo clients stop sending hashes.
 */
export function resolvePersisted(
  request: { query?: string | undefined; extensions?: unknown },
  store: PersistedQueries,
  options: { automatic: boolean },
): PersistedResolution {
  const sent: unknown = request.query;
  if (sent !== undefined && sent !== null && typeof sent !== 'string') return failure('PERSISTED_QUERY_INVALID', 'query must be a string');
  const query = typeof sent === 'string' && sent !== '' ? sent : undefined;
  const extension = persistedHash(request.extensions);
  if ('error' in extension) return failure('PERSISTED_QUERY_INVALID', extension.error);
  const hash = extension.hash;
  if (hash === undefined) return query === undefined ? failure('QUERY_MISSING', 'The request has no query') : { query };

  if (query !== undefined) {
    const actual = sha256Hex(query);
    if (actual !== hash) {
      const error = mismatch(hash, actual);
      return failure(error.code, error.message);
    }
    if (options.automatic) store.register(hash, query);
    else if (store.lookupNamed(hash) === undefined) return failure('PERSISTED_QUERY_NOT_SUPPORTED', 'PersistedQueryNotSupported');
    return { query };
  }
  const found = options.automatic ? store.lookup(hash) : store.lookupNamed(hash);
  if (found !== undefined) return { query: found };
  return options.automatic
    ? failure('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound')
    : failure('PERSISTED_QUERY_NOT_SUPPORTED', 'PersistedQueryNotSupported');
}
