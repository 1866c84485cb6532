// Store layer (query index): evaluates a StoreQuery over in-memory columns of the property index,
// as bit sets over node ordinals. Exact totals over hundreds of thousands of candidates then cost a
// few word operations instead of a B-tree probe per row. Columns load lazily, per workspace and
// property. A workspace is a base segment (as loaded) plus a delta of the changes since, kept current
// from the store's change events (live-workspaces.ts): a write of k nodes costs O(k), never a reload.
// Whatever a request chooses (property names, conditions, result rows) is kept within a byte budget
// (memory-budget.ts).
import type { Condition, StoreQuery, ValueKind } from '../../query/ast.js';
import { readableBy } from '../../query/glob.js';
import type { QueryResult } from '../content-store.js';
import type { NodeRecord } from '../rows.js';
import type { Bitmap } from './bitmap.js';
import type { ColumnSource } from './column-source.js';
import { compareCodePoints } from './compare.js';
import type { Column } from './column-scan.js';
import { indexRuns, indexSupports, propertiesOf } from './answerable.js';
import { hasIdColumn, KIND_NAMES } from './column-source.js';
import { orderKeysOf, type OrderKeys } from './order-keys.js';
import { chainCompare, nodeCompare, orderedPage, propertyCompare, type OrdinalCompare } from './ordered-page.js';
import { idsOf, type Workspace } from './workspace.js';
import {
  columnBytes, DEFAULT_QUERY_INDEX_BYTES, MemoryBudget, orderKeysBytes, resultBytes,
  type Conjunction, type DeltaMatches, type QueryIndexStats, type Result,
} from './memory-budget.js';
import { stringBytes } from '../../cache/byte-lru.js';
import { recordsOf } from './records.js';
import { LiveWorkspaces, type QueryIndexEvent, type Segment } from './live-workspaces.js';
import { bitsOfNids, conditionBits, scopeBits, type ConditionContext } from './conditions.js';
import { matchingExtras } from './record-match.js';
import { mergedCompare, mergedPage } from './merged-page.js';
import type { Delta, Extra } from './delta.js';
import { livePrefix, prefixLength, type OrderedPrefix } from './ordered-prefix.js';
import { persistedKeyOrder, type PersistOptions } from './persisted-segments.js';
import { BaseReader } from './base-reader.js';

export interface QueryIndexOptions {
  /** Bytes of columns, order keys, bit sets and rows kept (`cache.queryIndexMaxBytes`; default 1 GiB). */
  readonly maxBytes?: number;
  /** Told of each full workspace load, in-place application, rebuild and drop (the app logs them). */
  readonly onEvent?: (event: QueryIndexEvent) => void;
  /** Base segments persisted in the database (`cache.persistQueryIndex`); absent = always read SQL. */
  readonly persist?: PersistOptions;
}

/** A column of a property no node has: shared, so asking for one allocates nothing. */
const NO_VALUES: Column = {
  pos: new Uint16Array(0), kinds: new Uint8Array(0), nums: new Float64Array(0), codes: new Uint32Array(0), dict: [], ords: new Int32Array(0),
};

export class QueryIndex {
  #generation = -1;
  #syncing: { readonly generation: number; readonly done: Promise<void> } | undefined;
  readonly #budget: MemoryBudget;
  #feed: LiveWorkspaces;
  /** Columns being read, so concurrent requests share one read; never kept once settled (a failure is retried). */
  #loading = new Map<string, Promise<Column>>();
  /** Changes whenever the caches drop: a read begun before must not fill them afterwards. */
  #epoch = 0;
  /** Bases in use: a read for a retired base must not fill the caches. */
  readonly #live = new Set<string>();
  #bases = 0;
  readonly #options: QueryIndexOptions;
  readonly #reader: BaseReader;

  constructor(private readonly source: ColumnSource, options: QueryIndexOptions = {}) {
    this.#options = options;
    this.#reader = new BaseReader(source, options.persist);
    this.#budget = new MemoryBudget(options.maxBytes ?? DEFAULT_QUERY_INDEX_BYTES);
    this.#feed = this.#newFeed();
  }

  #newFeed(): LiveWorkspaces {
    return new LiveWorkspaces(this.source, {
      readBase: (workspace, fresh) => this.#readBase(workspace, fresh),
      retire: (base) => {
        this.#live.delete(base.key);
        this.#budget.dropPrefix(`${base.key}\u0000`);
      },
      stale: (base, nids) => { for (const nid of nids) this.#budget.records.delete(`${base.key}\u0000${nid}`); },
      // Delta records are what queries evaluate one by one: past an eighth of the budget, rebuild.
      maxDeltaBytes: Math.floor(this.#budget.maxBytes / 8),
      onEvent: this.#options.onEvent,
    });
  }

  /** Drops every loaded workspace and column (the database went back, or the store closed). */
  invalidate(): void {
    this.#feed.dropAll();
    this.#feed = this.#newFeed();
    this.#loading = new Map();
    this.#live.clear();
    this.#budget.clear();
    this.#epoch++;
    this.#generation = -1;
    this.#syncing = undefined;
  }

  /** What the byte-bounded caches hold, and how the loaded workspaces followed changes. */
  memoryStats(): QueryIndexStats {
    return { ...this.#budget.stats(), ...this.#feed.stats() };
  }

  /** When the store's generation moved: the change events since the last one applied, applied in place. */
  async #sync(): Promise<void> {
    const generation = await this.source.generation();
    if (generation === this.#generation) return;
    if (generation < this.#generation) this.invalidate(); // another database, or one restored
    if (this.#syncing?.generation === generation) return this.#syncing.done;
    const feed = this.#feed;
    const done = feed.sync().then(() => {
      if (feed === this.#feed && generation > this.#generation) this.#generation = generation;
    }).finally(() => { if (this.#syncing?.done === done) this.#syncing = undefined; });
    this.#syncing = { generation, done };
    return done;
  }

  async #segment(workspace: string): Promise<Segment> {
    await this.#sync();
    return this.#feed.segment(workspace);
  }

  async run(q: StoreQuery, ftsMatch: string): Promise<QueryResult> {
    const { base: ws, delta } = await this.#segment(q.workspace);
    // What is expensive (the conjunction's bit set and count, the ordered prefix) is kept per base,
    // whatever the delta; a write then costs the next request O(delta + page), not O(matches).
    const key = `${ws.key}\u0000and\u0000${q.rootPath}\u0000${q.types === null ? '*' : q.types.join('\u0000')}\u0000${JSON.stringify(q.conditions)}\u0000${ftsMatch}`;
    const base = await this.#baseConjunction(ws, q, ftsMatch, key);
    const live = await this.#deltaMatches(ws, q, ftsMatch, key, base, delta);
    const total = base.total - live.tombstoned + live.extras.length;
    if (total === 0 || q.offset >= total) return { total, nodes: [] };
    const readEpoch = this.#epoch;
    const records = (ordinals: readonly number[]) => recordsOf(this.#budget.records, this.source, ws, ws.key,
      ordinals.map((o) => ws.table.nids[o]!), () => readEpoch === this.#epoch && this.#live.has(ws.key));
    const need = q.offset + q.limit;
    const baseTotal = base.total - live.tombstoned;
    // The base's first `need` live matches in the query's order.
    const first = async (): Promise<number[]> => {
      if (baseTotal === 0) return [];
      if (q.orderBy.length === 0) return base.matches.first(need, 0, delta.tombstones);
      return this.#prefix(ws, q, key, base, delta, live.tombstoned, need);
    };
    if (live.extras.length === 0) {
      const ordinals = q.orderBy.length === 0
        ? base.matches.first(q.limit, q.offset, delta.tombstones)
        : (await first()).slice(q.offset, need);
      return { total, nodes: await records(ordinals) };
    }
    return { total, nodes: await this.#mergedPage(ws, q, await first(), live.extras, records) };
  }

  /** The base matches of the query (no tombstones taken out), kept per base. */
  async #baseConjunction(ws: Workspace, q: StoreQuery, ftsMatch: string, key: string): Promise<Conjunction> {
    const hit = this.#budget.results.get(key) as Conjunction | undefined;
    if (hit !== undefined) return hit;
    const epoch = this.#epoch;
    // Every column the query uses (its orders too), asked for at once: those not loaded yet are read
    // together. Only here, where the conjunction is not kept: a kept one needs no filter column.
    for (const name of propertiesOf(q)) this.#column(ws, q.workspace, name).catch(() => undefined);
    const matches = this.#scope(ws, q);
    for (const c of q.conditions) matches.and(await this.#cachedCondition(ws, q.workspace, c));
    if (q.fullText.length > 0) {
      const ftsKey = `${ws.key}\u0000fullText\u0000${ftsMatch}`;
      let b = this.#budget.results.get(ftsKey) as Bitmap | undefined;
      if (!b) this.#keepResult(epoch, ws, ftsKey, (b = bitsOfNids(ws, await this.source.fullText(ftsMatch))));
      matches.and(b);
    }
    const conjunction: Conjunction = { kind: 'conjunction', matches, total: matches.count() };
    this.#keepResult(epoch, ws, key, conjunction);
    return conjunction;
  }

  /** The conjunction's tombstoned matches and matching delta records: O(delta), kept per delta version. */
  async #deltaMatches(ws: Workspace, q: StoreQuery, ftsMatch: string, key: string, base: Conjunction, delta: Delta): Promise<DeltaMatches> {
    const deltaKey = `${key}\u0000delta`;
    const hit = this.#budget.results.get(deltaKey) as DeltaMatches | undefined;
    if (hit !== undefined && hit.version === delta.version) return hit;
    const epoch = this.#epoch;
    // Full text of delta records: the source's search knows their current text (the base's bit set does not).
    const fullTextNids = q.fullText.length > 0 && delta.extras.size > 0 ? new Set(await this.source.fullText(ftsMatch)) : undefined;
    const tombstoned = delta.tombstones === undefined ? 0 : base.matches.countAnd(delta.tombstones);
    const answer: DeltaMatches = { kind: 'delta', version: delta.version, tombstoned, extras: matchingExtras(delta, q, fullTextNids) };
    this.#keepResult(epoch, ws, deltaKey, answer);
    return answer;
  }

  /**
   * The first `need` live base matches in `orderBy` order, from the kept ordered prefix of the base
   * conjunction; recomputed (a top-k over every base match) only when that prefix no longer covers them.
   */
  async #prefix(ws: Workspace, q: StoreQuery, key: string, base: Conjunction, delta: Delta, tombstoned: number, need: number): Promise<number[]> {
    const prefixKey = `${key}\u0000order\u0000${JSON.stringify(q.orderBy)}`;
    const hit = this.#budget.results.get(prefixKey) as OrderedPrefix | undefined;
    const cached = hit === undefined ? undefined : livePrefix(hit, delta.tombstones, need);
    if (cached !== undefined) return cached;
    const epoch = this.#epoch;
    const k = prefixLength(need, tombstoned, base.total);
    const ordinals = await this.#ordered(ws, { ...q, offset: 0, limit: k }, base.matches, base.total);
    const prefix: OrderedPrefix = { kind: 'prefix', ordinals: Int32Array.from(ordinals), complete: k >= base.total };
    this.#keepResult(epoch, ws, prefixKey, prefix);
    // At most `tombstoned` of its k >= need + tombstoned ordinals are tombstoned, or it holds every match.
    return livePrefix(prefix, delta.tombstones, need)!;
  }

  /** A page of base matches and delta records: the base's first `offset + limit` (`base`), merged with the records. */
  async #mergedPage(
    ws: Workspace, q: StoreQuery, base: readonly number[], extras: readonly Extra[], records: (ordinals: readonly number[]) => Promise<NodeRecord[]>,
  ): Promise<NodeRecord[]> {
    const propertyKeys: (OrderKeys | undefined)[] = [];
    for (const o of q.orderBy) {
      propertyKeys.push(o.target.kind === 'property' && ws.propertyNames.has(o.target.name) ? await this.#orderKeys(ws, o.target.name) : undefined);
    }
    const ids = q.orderBy.some((o) => o.target.kind === 'uuid') ? await idsOf(ws, this.source, q.workspace) : undefined;
    const page = mergedPage(base, extras, mergedCompare(ws, q.orderBy, { propertyKeys, ids }), q.offset, q.limit);
    const fromBase = await records(page.filter((i): i is number => typeof i === 'number'));
    const byPath = new Map(fromBase.map((r) => [r.path, r]));
    const out: NodeRecord[] = [];
    for (const i of page) {
      const r = typeof i === 'number' ? byPath.get(ws.table.paths.at(i)) : (i as Extra).record;
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  /** Keeps a bit set or conjunction if the caches have not dropped since `epoch` and the base is in use. */
  #keepResult(epoch: number, ws: Workspace, key: string, value: Result): void {
    if (epoch !== this.#epoch || !this.#live.has(ws.key)) return;
    // The key is a cons string of its parts (a query's conditions, orders, words) until V8 flattens it.
    this.#budget.results.set(key, value, 2 * stringBytes(key) + resultBytes(value));
  }

  /** The kinds of these properties among the nodes the rules let the caller read. */
  async kinds(workspace: string, names: readonly string[], readable: Extract<Condition, { kind: 'readable' }>): Promise<Map<string, ValueKind[]>> {
    const { base: ws, delta } = await this.#segment(workspace);
    const scope = await conditionBits(this.#context(ws, workspace), readable);
    if (delta.tombstones) scope.andNot(delta.tombstones);
    const seen = new Map<string, Set<ValueKind>>(names.map((n) => [n, new Set()]));
    for (const name of names) {
      if (!ws.propertyNames.has(name)) continue;
      const col = await this.#column(ws, workspace, name);
      for (let i = 0; i < col.ords.length; i++) {
        const o = col.ords[i]!;
        if (o >= 0 && scope.has(o)) seen.get(name)!.add(KIND_NAMES[col.kinds[i]!]!);
      }
    }
    for (const x of delta.extras.values()) {
      if (!readableBy(readable.rules, x.record.path)) continue;
      for (const r of x.rows) seen.get(r.name)?.add(r.kind);
    }
    const out = new Map<string, ValueKind[]>();
    for (const [name, kinds] of seen) if (kinds.size > 0) out.set(name, [...kinds]);
    return out;
  }

  async #readBase(workspace: string, fresh: boolean): Promise<Workspace> {
    const { table, floor, names, ordinalOfNid } = await this.#reader.base(workspace, fresh);
    const key = `${++this.#bases}\u0001${workspace}`;
    this.#live.add(key);
    return { key, workspace, floor, table, ordinalOfNid, propertyNames: new Set(names) };
  }

  /** Persists anew the segments of these workspaces that have any (after an import); the number written. */
  refreshPersisted(workspaces: readonly string[]): Promise<number> {
    return this.#reader.refresh(workspaces);
  }

  /** Waits for the segment writes begun in the background (tests, a store closing). */
  persistedSettled(): Promise<void> {
    return this.#reader.settled();
  }

  #context(ws: Workspace, workspace: string): ConditionContext {
    return {
      ws, workspace,
      column: (name) => this.#column(ws, workspace, name),
      nidsOfIds: (ids) => this.source.nidsOfIds(workspace, ids),
      cached: (key, compute) => {
        let b = this.#budget.results.get(key) as Bitmap | undefined;
        if (!b) this.#keepResult(this.#epoch, ws, key, (b = compute()));
        return b;
      },
    };
  }

  /** The column of a property; a name no node has costs nothing (no read, no allocation, no entry). */
  #column(ws: Workspace, workspace: string, name: string): Promise<Column> {
    if (!ws.propertyNames.has(name)) return Promise.resolve(NO_VALUES);
    const key = `${ws.key}\u0000column\u0000${name}`;
    const hit = this.#budget.perName.get(key);
    if (hit !== undefined && 'column' in hit) return Promise.resolve(hit.column);
    let loading = this.#loading.get(key);
    if (!loading) {
      const epoch = this.#epoch;
      const pending = this.#loading;
      const read: Promise<Column> = this.#reader.column(ws, name).then((column) => {
        if (epoch === this.#epoch && this.#live.has(ws.key)) this.#budget.perName.set(key, { column }, stringBytes(key) + columnBytes(column));
        return column;
      });
      const forget = () => { if (pending.get(key) === read) pending.delete(key); };
      read.then(forget, forget);
      pending.set(key, read);
      loading = read;
    }
    return loading;
  }

  #scope(ws: Workspace, q: StoreQuery): Bitmap {
    const key = `${ws.key}\u0000scope\u0000${q.rootPath}\u0000${q.types === null ? '*' : q.types.join('\u0000')}`;
    return this.#context(ws, q.workspace).cached(key, () => scopeBits(ws, q)).clone();
  }

  /**
   * A condition's bit set, kept for reuse (a filter cache, as search engines keep one): listing pages
   * repeat the same filters with other pages, orders and companions. Bounded; dropped with the base.
   */
  async #cachedCondition(ws: Workspace, workspace: string, c: Condition): Promise<Bitmap> {
    const key = `${ws.key}\u0000if\u0000${JSON.stringify(c)}`;
    const hit = this.#budget.results.get(key) as Bitmap | undefined;
    if (hit) return hit;
    const epoch = this.#epoch;
    const b = await conditionBits(this.#context(ws, workspace), c);
    this.#keepResult(epoch, ws, key, b);
    return b;
  }

  async #ordered(ws: Workspace, q: StoreQuery, matches: Bitmap, total: number): Promise<number[]> {
    const keys: OrdinalCompare[] = [];
    let firstKeys: OrderKeys | undefined;
    for (const o of q.orderBy) {
      const dir = o.descending ? -1 : 1;
      switch (o.target.kind) {
        case 'property':
          // A property no node has orders nothing (every node lacks it); it costs no keys either.
          if (ws.propertyNames.has(o.target.name)) {
            const k = await this.#orderKeys(ws, o.target.name);
            firstKeys ??= o === q.orderBy[0] ? k : undefined;
            keys.push(propertyCompare(k, o.descending));
          }
          break;
        case 'name':
        case 'path':
        case 'type':
          keys.push(nodeCompare(ws, o.target.kind, o.descending));
          break;
        case 'uuid': {
          // Needs the ids in memory: only sources with `idColumn`; otherwise SQL serves it (see SqliteStore).
          const ids = await idsOf(ws, this.source, q.workspace);
          keys.push((a, b) => dir * compareCodePoints(ids[a]!, ids[b]!));
          break;
        }
      }
    }
    const first = q.orderBy[0]!;
    const single = q.orderBy.length === 1 && first.target.kind === 'property' && firstKeys !== undefined
      ? { keys: firstKeys, descending: first.descending, size: ws.table.nids.length }
      : undefined;
    return orderedPage({ matches, total, offset: q.offset, limit: q.limit, compare: chainCompare(keys), ...(single ? { single } : {}) });
  }

  async #orderKeys(ws: Workspace, name: string): Promise<OrderKeys> {
    const key = `${ws.key}\u0000keys\u0000${name}`;
    const hit = this.#budget.perName.get(key);
    if (hit !== undefined && 'keys' in hit) return hit.keys;
    const epoch = this.#epoch;
    const col = await this.#column(ws, ws.workspace, name);
    const keys = orderKeysOf(col, ws.table.nids.length);
    const keyOrder = col.keyOrder;
    if (keyOrder !== undefined) keys.sortedFromSegment = () => persistedKeyOrder(col, col.ords, keyOrder);
    if (epoch === this.#epoch && this.#live.has(ws.key)) this.#budget.perName.set(key, { keys }, stringBytes(key) + orderKeysBytes(col, ws.table.nids.length));
    return keys;
  }

  /** True when this index can answer the query (answerable.ts). */
  canRun(q: StoreQuery): boolean {
    return indexRuns(q, hasIdColumn(this.source));
  }

  /** True when the index can answer the query without uuid conditions or order (otherwise the store uses SQL). */
  static supports(q: StoreQuery): boolean {
    return indexSupports(q);
  }
}
