// Store layer (query index): evaluates a StoreQuery over in-memory columns of the property index,
// as bit sets over node ordinals. Exact totals over hundreds of thousands of candidates then cost a
// few word operations instead of a B-tree probe per row. Columns load lazily, per workspace and
// property, and are dropped whenever the store's content generation changes. Whatever a request
// chooses (property names, conditions, result rows) is kept within a byte budget (memory-budget.ts).
import type { Condition, StoreQuery, Target, ValueKind } from '../../query/ast.js';
import { descendantRange } from '../../repository/paths.js';
import type { QueryResult } from '../content-store.js';
import { Bitmap } from './bitmap.js';
import type { ColumnSource } from './column-source.js';
import { compareCodePoints } from './compare.js';
import { compileLike, likeMatchAny } from '../../query/like.js';
import { inRange, lowerBound, rangeInto, uuidEqualities, type Column } from './column-scan.js';
import { hasIdColumn } from './column-source.js';
import { orderKeysOf, type OrderKeys } from './order-keys.js';
import { chainCompare, nodeCompare, orderedPage, propertyCompare, type OrdinalCompare } from './ordered-page.js';
import { readableBy } from '../../query/glob.js';
import { foldedNamesOf, idsOf, namesOf, ordinalOf, type Workspace } from './workspace.js';
import { bitmapBytes, columnBytes, DEFAULT_QUERY_INDEX_BYTES, MemoryBudget, orderKeysBytes, type QueryIndexStats, type Result } from './memory-budget.js';
import { stringBytes } from '../../cache/byte-lru.js';
import { recordsOf } from './records.js';

export interface QueryIndexOptions {
  /** Bytes of columns, order keys, bit sets and rows kept (`cache.queryIndexMaxBytes`; default 1 GiB). */
  readonly maxBytes?: number;
}

/** A column of a property no node has: shared, so asking for one allocates nothing. */
const NO_VALUES: Column = {
  nids: new Int32Array(0), pos: new Uint16Array(0), kinds: [], nums: new Float64Array(0), strs: [], folded: [], ords: new Int32Array(0),
};

export class QueryIndex {
  #generation = -1;
  #workspaces = new Map<string, Promise<Workspace>>();
  readonly #budget: MemoryBudget;
  /** Columns being read, so concurrent requests share one read; never kept once settled (a failure is retried). */
  #loading = new Map<string, Promise<Column>>();
  /** Changes whenever the caches drop: a read begun before must not fill them afterwards. */
  #epoch = 0;

  constructor(private readonly source: ColumnSource, options: QueryIndexOptions = {}) {
    this.#budget = new MemoryBudget(options.maxBytes ?? DEFAULT_QUERY_INDEX_BYTES);
  }

  /** Drops every loaded column (after a write in this process). */
  invalidate(): void {
    this.#drop();
    this.#generation = -1;
  }

  /** What the byte-bounded caches hold. */
  memoryStats(): QueryIndexStats {
    return this.#budget.stats();
  }

  #drop(): void {
    this.#workspaces = new Map();
    this.#loading = new Map();
    this.#budget.clear();
    this.#epoch++;
  }

  async #sync(): Promise<void> {
    const generation = await this.source.generation();
    if (generation !== this.#generation) {
      this.#drop();
      this.#generation = generation;
    }
  }

  async run(q: StoreQuery, ftsMatch: string): Promise<QueryResult> {
    await this.#sync();
    const ws = await this.#workspace(q.workspace);
    const size = ws.table.nids.length;
    // The whole conjunction is kept too: pages and orders of one list repeat it, and intersecting and
    // counting a million-bit set on every request would be most of the query's cost.
    const conjunction = `${q.workspace}\u0000and\u0000${q.rootPath}\u0000${q.types === null ? '*' : q.types.join('\u0000')}\u0000${JSON.stringify(q.conditions)}\u0000${ftsMatch}`;
    let hit = this.#budget.results.get(conjunction) as { readonly matches: Bitmap; readonly total: number } | undefined;
    if (hit === undefined) {
      const epoch = this.#epoch;
      const matches = this.#scope(ws, q);
      for (const c of q.conditions) {
        matches.and(await this.#cachedCondition(ws, q.workspace, c, size));
      }
      if (q.fullText.length > 0) {
        const key = `${q.workspace}\u0000fullText\u0000${ftsMatch}`;
        let b = this.#budget.results.get(key) as Bitmap | undefined;
        if (!b) {
          b = this.#fromNids(ws, await this.source.fullText(ftsMatch), size);
          this.#keepResult(epoch, key, b);
        }
        matches.and(b);
      }
      hit = { matches, total: matches.count() };
      this.#keepResult(epoch, conjunction, hit);
    }
    const { matches, total } = hit;
    if (total === 0 || q.offset >= total) return { total, nodes: [] };
    const ordinals = q.orderBy.length === 0
      ? matches.first(q.limit, q.offset)
      : await this.#ordered(ws, q, matches, total);
    const readEpoch = this.#epoch;
    const nids = ordinals.map((o) => ws.table.nids[o]!);
    return { total, nodes: await recordsOf(this.#budget.records, this.source, ws, q.workspace, nids, () => readEpoch === this.#epoch) };
  }

  /** Keeps a bit set or conjunction if the caches have not dropped since `epoch`. */
  #keepResult(epoch: number, key: string, value: Result): void {
    if (epoch !== this.#epoch) return;
    const words = 'words' in value ? value : value.matches;
    this.#budget.results.set(key, value, stringBytes(key) + bitmapBytes(words));
  }

  /** The kinds of these properties among the nodes the rules let the caller read. */
  async kinds(workspace: string, names: readonly string[], readable: Extract<Condition, { kind: 'readable' }>): Promise<Map<string, ValueKind[]>> {
    await this.#sync();
    const ws = await this.#workspace(workspace);
    const scope = await this.#condition(ws, workspace, readable, ws.table.nids.length);
    const out = new Map<string, ValueKind[]>();
    for (const name of names) {
      if (!ws.propertyNames.has(name)) continue;
      const col = await this.#column(ws, workspace, name);
      const seen = new Set<ValueKind>();
      for (let i = 0; i < col.ords.length; i++) {
        const o = col.ords[i]!;
        if (o >= 0 && scope.has(o)) seen.add(col.kinds[i]!);
      }
      if (seen.size > 0) out.set(name, [...seen]);
    }
    return out;
  }

  #workspace(name: string): Promise<Workspace> {
    let w = this.#workspaces.get(name);
    if (!w) {
      const loading: Promise<Workspace> = Promise.all([this.source.nodeTable(name), this.source.propertyNames(name)]).then(([table, names]) => {
        let max = 0;
        for (let i = 0; i < table.nids.length; i++) if (table.nids[i]! > max) max = table.nids[i]!;
        const ordinalOfNid = new Int32Array(max + 1);
        for (let i = 0; i < table.nids.length; i++) ordinalOfNid[table.nids[i]!] = i + 1;
        return { table, ordinalOfNid, propertyNames: new Set(names) };
      });
      // A failed read (store unreachable) is not kept: the next request reads again.
      loading.catch(() => { if (this.#workspaces.get(name) === loading) this.#workspaces.delete(name); });
      this.#workspaces.set(name, loading);
      w = loading;
    }
    return w;
  }

  /** The column of a property; a name no node has costs nothing (no read, no allocation, no entry). */
  #column(ws: Workspace, workspace: string, name: string): Promise<Column> {
    if (!ws.propertyNames.has(name)) return Promise.resolve(NO_VALUES);
    const key = `${workspace}\u0000${name}`;
    const hit = this.#budget.perName.get(`column\u0000${key}`);
    if (hit !== undefined && 'column' in hit) return Promise.resolve(hit.column);
    let loading = this.#loading.get(key);
    if (!loading) {
      const epoch = this.#epoch;
      const pending = this.#loading;
      const read: Promise<Column> = this.source.propertyColumn(workspace, name).then((col) => {
        const ords = new Int32Array(col.nids.length);
        for (let i = 0; i < ords.length; i++) ords[i] = ordinalOf(ws, col.nids[i]!);
        const column: Column = { ...col, ords };
        if (epoch === this.#epoch) this.#budget.perName.set(`column\u0000${key}`, { column }, stringBytes(key) + columnBytes(column));
        return column;
      });
      const forget = () => { if (pending.get(key) === read) pending.delete(key); };
      read.then(forget, forget);
      pending.set(key, read);
      loading = read;
    }
    return loading;
  }

  /** Ordinals of the half-open path range [lo, hi) (paths are sorted). */
  #pathRange(ws: Workspace, lo: string, hi: string): [number, number] {
    return [lowerBound(ws.table.paths, lo), lowerBound(ws.table.paths, hi)];
  }

  #scope(ws: Workspace, q: StoreQuery): Bitmap {
    const key = `${q.workspace}\u0000scope\u0000${q.rootPath}\u0000${q.types === null ? '*' : q.types.join('\u0000')}`;
    let cached = this.#budget.results.get(key) as Bitmap | undefined;
    if (!cached) {
      cached = this.#computeScope(ws, q);
      this.#keepResult(this.#epoch, key, cached);
    }
    return cached.clone();
  }

  #computeScope(ws: Workspace, q: StoreQuery): Bitmap {
    const size = ws.table.nids.length;
    let b: Bitmap;
    if (q.rootPath === '/') b = Bitmap.full(size);
    else {
      const [lo, hi] = descendantRange(q.rootPath);
      const [a, z] = this.#pathRange(ws, lo, hi);
      b = Bitmap.range(size, a, z);
    }
    if (q.types !== null) {
      const allowed = new Uint8Array(ws.table.types.length);
      ws.table.types.forEach((t, i) => { if (q.types!.includes(t)) allowed[i] = 1; });
      const codes = ws.table.typeCodes;
      const t = new Bitmap(size);
      for (let i = 0; i < size; i++) if (allowed[codes[i]!] === 1) t.set(i);
      b.and(t);
    }
    return b;
  }

  #fromNids(ws: Workspace, nids: Int32Array | readonly number[], size: number): Bitmap {
    const b = new Bitmap(size);
    for (const nid of nids) {
      const o = ordinalOf(ws, nid);
      if (o >= 0) b.set(o);
    }
    return b;
  }

  #fromColumn(col: Column, size: number): Bitmap {
    const b = new Bitmap(size);
    const ords = col.ords;
    for (let i = 0; i < ords.length; i++) if (ords[i]! >= 0) b.set(ords[i]!);
    return b;
  }

  /**
   * A condition's bit set, kept for reuse (a filter cache, as search engines keep one): listing pages
   * repeat the same filters with other pages, orders and companions. Bounded; dropped with the columns.
   */
  async #cachedCondition(ws: Workspace, workspace: string, c: Condition, size: number): Promise<Bitmap> {
    const key = `${workspace}\u0000if\u0000${JSON.stringify(c)}`;
    const hit = this.#budget.results.get(key) as Bitmap | undefined;
    if (hit) return hit;
    const epoch = this.#epoch;
    const b = await this.#condition(ws, workspace, c, size);
    this.#keepResult(epoch, key, b);
    return b;
  }

  async #condition(ws: Workspace, workspace: string, c: Condition, size: number): Promise<Bitmap> {
    switch (c.kind) {
      case 'never':
        return new Bitmap(size);
      case 'readable': {
        const key = `${workspace}\u0000readable\u0000${JSON.stringify(c.rules)}`;
        let b = this.#budget.results.get(key) as Bitmap | undefined;
        if (!b) {
          b = new Bitmap(size);
          const paths = ws.table.paths;
          for (let i = 0; i < size; i++) if (readableBy(c.rules, paths[i]!)) b.set(i);
          this.#keepResult(this.#epoch, key, b);
        }
        return b.clone();
      }
      case 'descendantOf': {
        const b = new Bitmap(size);
        // Overlapping ancestors (`/a|/a|/a/b|…`, up to 100) set each ordinal once: work stays O(size).
        const spans = c.paths.map((p) => this.#pathRange(ws, ...descendantRange(p))).sort((x, y) => x[0] - y[0]);
        let done = 0;
        for (const [a, z] of spans) {
          for (let i = Math.max(a, done); i < z; i++) b.set(i);
          done = Math.max(done, z);
        }
        return c.negate ? Bitmap.full(size).andNot(b) : b;
      }
      case 'exists': {
        const b = this.#fromColumn(await this.#column(ws, workspace, c.name), size);
        return c.exists ? b : Bitmap.full(size).andNot(b);
      }
      case 'like': {
        const patterns = c.patterns.map(compileLike);
        const b = await this.#match(ws, workspace, c.target, size, c.caseInsensitive, (_kind, _num, str) => likeMatchAny(patterns, str));
        return c.negate ? Bitmap.full(size).andNot(b) : b;
      }
      case 'ranges': {
        let b: Bitmap;
        if (c.target.kind === 'uuid') {
          // eq / ne on the UUID (see `canRun`): the nodes of these ids, looked up by the source.
          const ids = uuidEqualities(c.ranges);
          if (ids === undefined) throw new Error('uuid conditions other than eq and ne are served by SQL');
          b = ids.length === 0 ? new Bitmap(size) : this.#fromNids(ws, await this.source.nidsOfIds(workspace, ids), size);
          return c.negate ? Bitmap.full(size).andNot(b) : b;
        }
        if (c.target.kind === 'property') {
          const col = await this.#column(ws, workspace, c.target.name);
          b = new Bitmap(size);
          for (const r of c.ranges) rangeInto(col, r, b);
          if (c.negate) return this.#fromColumn(col, size).andNot(b);
          return b;
        }
        const hit = (kind: ValueKind, num: number, str: string) => c.ranges.some((r) => inRange(r, kind, num, str));
        b = await this.#match(ws, workspace, c.target, size, false, hit);
        return c.negate ? Bitmap.full(size).andNot(b) : b;
      }
    }
  }

  /** Ordinals having a value of `target` for which `test` holds. */
  async #match(
    ws: Workspace, workspace: string, target: Target, size: number, folded: boolean,
    test: (kind: ValueKind, num: number, str: string) => boolean,
  ): Promise<Bitmap> {
    const b = new Bitmap(size);
    switch (target.kind) {
      case 'property': {
        const col = await this.#column(ws, workspace, target.name);
        const strs = folded ? col.folded : col.strs;
        const ords = col.ords;
        for (let i = 0; i < ords.length; i++) {
          if (ords[i]! >= 0 && test(col.kinds[i]!, col.nums[i]!, strs[i]!)) b.set(ords[i]!);
        }
        return b;
      }
      case 'name': {
        const names = folded ? foldedNamesOf(ws) : namesOf(ws);
        for (let i = 0; i < size; i++) if (test('string', NaN, names[i]!)) b.set(i);
        return b;
      }
      case 'path': {
        const paths = ws.table.paths;
        for (let i = 0; i < size; i++) if (test('string', NaN, folded ? paths[i]!.toLowerCase() : paths[i]!)) b.set(i);
        return b;
      }
      case 'type': {
        const ok = ws.table.types.map((t) => test('string', NaN, folded ? t.toLowerCase() : t));
        const codes = ws.table.typeCodes;
        for (let i = 0; i < size; i++) if (ok[codes[i]!]) b.set(i);
        return b;
      }
      case 'uuid':
        // UUIDs are not kept in memory; `supports` sends such queries to SQL.
        throw new Error('uuid conditions are served by SQL');
    }
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
            const k = await this.#orderKeys(ws, q.workspace, o.target.name);
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

  async #orderKeys(ws: Workspace, workspace: string, name: string): Promise<OrderKeys> {
    const key = `keys\u0000${workspace}\u0000${name}`;
    const hit = this.#budget.perName.get(key);
    if (hit !== undefined && 'keys' in hit) return hit.keys;
    const epoch = this.#epoch;
    const col = await this.#column(ws, workspace, name);
    const keys = orderKeysOf(col, ws.table.nids.length);
    if (epoch === this.#epoch) this.#budget.perName.set(key, { keys }, stringBytes(key) + orderKeysBytes(col, ws.table.nids.length));
    return keys;
  }

  /**
   * True when this index can answer the query: what `supports` allows, plus `eq` / `ne` on the UUID
   * (through `nidsOfIds`) and, when the source has `idColumn`, ordering by UUID.
   */
  canRun(q: StoreQuery): boolean {
    return q.conditions.every((c) => c.kind !== 'like' || c.target.kind !== 'uuid')
      && q.conditions.every((c) => c.kind !== 'ranges' || c.target.kind !== 'uuid' || uuidEqualities(c.ranges) !== undefined)
      && (hasIdColumn(this.source) || !q.orderBy.some((o) => o.target.kind === 'uuid'));
  }

  /** True when the index can answer the query without uuid conditions or order (otherwise the store uses SQL). */
  static supports(q: StoreQuery): boolean {
    const usesUuid = (t: Target) => t.kind === 'uuid';
    return !q.orderBy.some((o) => usesUuid(o.target))
      && !q.conditions.some((c) => (c.kind === 'ranges' || c.kind === 'like') && usesUuid(c.target));
  }
}
