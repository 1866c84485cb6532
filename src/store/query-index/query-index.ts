// Store layer (query index): evaluates a StoreQuery over in-memory columns of the property index,
// as bit sets over node ordinals. Exact totals over hundreds of thousands of candidates then cost a
// few word operations instead of a B-tree probe per row. Columns load lazily, per workspace and
// property, and are dropped whenever the store's content generation changes.
import type { Condition, StoreQuery, Target, ValueKind } from '../../query/ast.js';
import { descendantRange } from '../../repository/paths.js';
import type { QueryResult } from '../content-store.js';
import type { NodeRecord } from '../rows.js';
import { Bitmap } from './bitmap.js';
import type { ColumnSource } from './column-source.js';
import { compareCodePoints } from './compare.js';
import { compileLike, likeMatchAny } from '../../query/like.js';
import { inRange, lowerBound, rangeInto, uuidEqualities, type Column } from './column-scan.js';
import { hasIdColumn } from './column-source.js';
import { orderKeysOf, type OrderKeys } from './order-keys.js';
import { chainCompare, orderedPage, propertyCompare, type OrdinalCompare } from './ordered-page.js';
import { readableBy } from '../../query/glob.js';
import { ordinalOf, type Workspace } from './workspace.js';

const FILTER_CACHE_ENTRIES = 64;
const CONJUNCTION_CACHE_ENTRIES = 32;

const RECORD_CACHE_ENTRIES = 20_000;

export class QueryIndex {
  #generation = -1;
  #workspaces = new Map<string, Promise<Workspace>>();

  constructor(private readonly source: ColumnSource) {}

  /** Drops every loaded column (after a write in this process). */
  invalidate(): void {
    this.#workspaces = new Map();
    this.#generation = -1;
  }

  async run(q: StoreQuery, ftsMatch: string): Promise<QueryResult> {
    const generation = await this.source.generation();
    if (generation !== this.#generation) {
      this.#workspaces = new Map();
      this.#generation = generation;
    }
    const ws = await this.#workspace(q.workspace);
    const size = ws.table.nids.length;
    // The whole conjunction is kept too: pages and orders of one list repeat it, and intersecting and
    // counting a million-bit set on every request would be most of the query's cost.
    const conjunction = `${q.rootPath}\u0000${q.types === null ? '*' : q.types.join('\u0000')}\u0000${JSON.stringify(q.conditions)}\u0000${ftsMatch}`;
    let hit = ws.conjunctions.get(conjunction);
    if (hit === undefined) {
      const matches = this.#scope(ws, q);
      for (const c of q.conditions) {
        matches.and(await this.#cachedCondition(ws, q.workspace, c, size));
      }
      if (q.fullText.length > 0) {
        const key = `fullText\u0000${ftsMatch}`;
        let b = ws.filters.get(key);
        if (!b) {
          b = this.#fromNids(ws, await this.source.fullText(ftsMatch), size);
          ws.filters.set(key, b);
          if (ws.filters.size > FILTER_CACHE_ENTRIES) ws.filters.delete(ws.filters.keys().next().value!);
        }
        matches.and(b);
      }
      hit = { matches, total: matches.count() };
      if (ws.conjunctions.size >= CONJUNCTION_CACHE_ENTRIES) ws.conjunctions.delete(ws.conjunctions.keys().next().value!);
    } else {
      ws.conjunctions.delete(conjunction); // most recently used last
    }
    ws.conjunctions.set(conjunction, hit);
    const { matches, total } = hit;
    if (total === 0 || q.offset >= total) return { total, nodes: [] };
    const ordinals = q.orderBy.length === 0
      ? matches.first(q.limit, q.offset)
      : await this.#ordered(ws, q, matches, total);
    return { total, nodes: await this.#records(ws, ordinals.map((o) => ws.table.nids[o]!)) };
  }

  async #records(ws: Workspace, nids: readonly number[]): Promise<NodeRecord[]> {
    const missing = nids.filter((n) => !ws.records.has(n));
    if (missing.length > 0) {
      if (ws.records.size + missing.length > RECORD_CACHE_ENTRIES) ws.records.clear();
      const nidOfPath = new Map(missing.map((n) => [ws.table.paths[ws.ordinalOfNid[n]! - 1]!, n]));
      for (const r of await this.source.nodesByNid(missing)) {
        const nid = nidOfPath.get(r.path);
        if (nid !== undefined) ws.records.set(nid, r);
      }
    }
    const out: NodeRecord[] = [];
    for (const n of nids) {
      const r = ws.records.get(n);
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  /** The kinds of these properties among the nodes the rules let the caller read. */
  async kinds(workspace: string, names: readonly string[], readable: Extract<Condition, { kind: 'readable' }>): Promise<Map<string, ValueKind[]>> {
    const generation = await this.source.generation();
    if (generation !== this.#generation) {
      this.#workspaces = new Map();
      this.#generation = generation;
    }
    const ws = await this.#workspace(workspace);
    const scope = await this.#condition(ws, workspace, readable, ws.table.nids.length);
    const out = new Map<string, ValueKind[]>();
    for (const name of names) {
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
      w = this.source.nodeTable(name).then((table) => {
        let max = 0;
        for (let i = 0; i < table.nids.length; i++) if (table.nids[i]! > max) max = table.nids[i]!;
        const ordinalOfNid = new Int32Array(max + 1);
        for (let i = 0; i < table.nids.length; i++) ordinalOfNid[table.nids[i]!] = i + 1;
        return { table, ordinalOfNid, columns: new Map(), orderKeys: new Map(), scopes: new Map(), filters: new Map(), records: new Map(), conjunctions: new Map() };
      });
      this.#workspaces.set(name, w);
    }
    return w;
  }

  #column(ws: Workspace, workspace: string, name: string): Promise<Column> {
    let c = ws.columns.get(name);
    if (!c) {
      c = this.source.propertyColumn(workspace, name).then((col) => {
        const ords = new Int32Array(col.nids.length);
        for (let i = 0; i < ords.length; i++) ords[i] = ordinalOf(ws, col.nids[i]!);
        return { ...col, ords };
      });
      ws.columns.set(name, c);
    }
    return c;
  }

  /** Ordinals of the half-open path range [lo, hi) (paths are sorted). */
  #pathRange(ws: Workspace, lo: string, hi: string): [number, number] {
    return [lowerBound(ws.table.paths, lo), lowerBound(ws.table.paths, hi)];
  }

  #scope(ws: Workspace, q: StoreQuery): Bitmap {
    const key = `${q.rootPath}\u0000${q.types === null ? '*' : q.types.join('\u0000')}`;
    let cached = ws.scopes.get(key);
    if (!cached) {
      cached = this.#computeScope(ws, q);
      ws.scopes.set(key, cached);
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

  #names(ws: Workspace): string[] {
    ws.names ??= ws.table.paths.map((p) => p.slice(p.lastIndexOf('/') + 1));
    return ws.names;
  }

  #foldedNames(ws: Workspace): string[] {
    ws.foldedNames ??= this.#names(ws).map((n) => n.toLowerCase());
    return ws.foldedNames;
  }

  /**
   * A condition's bit set, kept for reuse (a filter cache, as search engines keep one): listing pages
   * repeat the same filters with other pages, orders and companions. Bounded; dropped with the columns.
   */
  async #cachedCondition(ws: Workspace, workspace: string, c: Condition, size: number): Promise<Bitmap> {
    const key = JSON.stringify(c);
    const hit = ws.filters.get(key);
    if (hit) {
      ws.filters.delete(key);
      ws.filters.set(key, hit); // most recently used last
      return hit;
    }
    const b = await this.#condition(ws, workspace, c, size);
    ws.filters.set(key, b);
    if (ws.filters.size > FILTER_CACHE_ENTRIES) ws.filters.delete(ws.filters.keys().next().value!);
    return b;
  }

  async #condition(ws: Workspace, workspace: string, c: Condition, size: number): Promise<Bitmap> {
    switch (c.kind) {
      case 'never':
        return new Bitmap(size);
      case 'readable': {
        const key = `readable\u0000${JSON.stringify(c.rules)}`;
        let b = ws.scopes.get(key);
        if (!b) {
          b = new Bitmap(size);
          const paths = ws.table.paths;
          for (let i = 0; i < size; i++) if (readableBy(c.rules, paths[i]!)) b.set(i);
          ws.scopes.set(key, b);
        }
        return b.clone();
      }
      case 'descendantOf': {
        const b = new Bitmap(size);
        for (const p of c.paths) {
          const [lo, hi] = descendantRange(p);
          const [a, z] = this.#pathRange(ws, lo, hi);
          for (let i = a; i < z; i++) b.set(i);
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
        const names = folded ? this.#foldedNames(ws) : this.#names(ws);
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
    for (const o of q.orderBy) {
      const dir = o.descending ? -1 : 1;
      switch (o.target.kind) {
        case 'property':
          keys.push(propertyCompare(await this.#orderKeys(ws, q.workspace, o.target.name), o.descending));
          break;
        case 'name': {
          const folded = this.#foldedNames(ws);
          const names = this.#names(ws);
          keys.push((a, b) => dir * (compareCodePoints(folded[a]!, folded[b]!) || compareCodePoints(names[a]!, names[b]!)));
          break;
        }
        case 'path': {
          const paths = ws.table.paths;
          keys.push((a, b) => dir * (compareCodePoints(paths[a]!.toLowerCase(), paths[b]!.toLowerCase()) || a - b));
          break;
        }
        case 'type': {
          const { typeCodes, types } = ws.table;
          keys.push((a, b) => dir * compareCodePoints(types[typeCodes[a]!]!, types[typeCodes[b]!]!));
          break;
        }
        case 'uuid': {
          // Needs the ids in memory: only sources with `idColumn`; otherwise SQL serves it (see SqliteStore).
          const ids = await this.#ids(ws, q.workspace);
          keys.push((a, b) => dir * compareCodePoints(ids[a]!, ids[b]!));
          break;
        }
      }
    }
    const first = q.orderBy[0]!;
    const single = q.orderBy.length === 1 && first.target.kind === 'property'
      ? { keys: await this.#orderKeys(ws, q.workspace, first.target.name), descending: first.descending, size: ws.table.nids.length }
      : undefined;
    return orderedPage({ matches, total, offset: q.offset, limit: q.limit, compare: chainCompare(keys), ...(single ? { single } : {}) });
  }

  #ids(ws: Workspace, workspace: string): Promise<string[]> {
    const source = this.source;
    if (!hasIdColumn(source)) return Promise.reject(new Error('order by uuid is served by SQL'));
    ws.ids ??= source.idColumn(workspace).then((col) => {
      const ids: string[] = new Array(ws.table.nids.length).fill('');
      for (let i = 0; i < col.nids.length; i++) {
        const o = ordinalOf(ws, col.nids[i]!);
        if (o >= 0) ids[o] = col.ids[i]!;
      }
      return ids;
    });
    return ws.ids;
  }

  async #orderKeys(ws: Workspace, workspace: string, name: string): Promise<OrderKeys> {
    let keys = ws.orderKeys.get(name);
    if (keys) return keys;
    keys = orderKeysOf(await this.#column(ws, workspace, name), ws.table.nids.length);
    ws.orderKeys.set(name, keys);
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
