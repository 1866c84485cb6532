// Store layer (query index): a query's scope and conditions as bit sets over the ordinals of a base
// segment (what was loaded; the delta is applied by the caller). Columns, id look-ups and the
// results cache come from the index through the context.
import type { Condition, StoreQuery, Target, ValueKind } from '../../query/ast.js';
import { compileLike, likeMatchAny } from '../../query/like.js';
import { readableBy } from '../../query/glob.js';
import { descendantRange } from '../../model/paths.js';
import { Bitmap } from './bitmap.js';
import { inRange, matchInto, rangeInto, uuidEqualities, type Column } from './column-scan.js';
import { foldedNamesOf, namesOf, ordinalOf, type Workspace } from './workspace.js';

export interface ConditionContext {
  readonly ws: Workspace;
  readonly workspace: string;
  column(name: string): Promise<Column>;
  nidsOfIds(ids: readonly string[]): Promise<Int32Array>;
  /** The bit set kept under `key` in the results cache, or `compute()` kept there. */
  cached(key: string, compute: () => Bitmap): Bitmap;
}

/** Ordinals of the half-open path range [lo, hi) (paths are sorted). */
function pathRange(ws: Workspace, lo: string, hi: string): [number, number] {
  return [ws.table.paths.lowerBound(lo), ws.table.paths.lowerBound(hi)];
}

/** The query's root path and node types, over the base. */
export function scopeBits(ws: Workspace, q: StoreQuery): Bitmap {
  const size = ws.table.nids.length;
  let b: Bitmap;
  if (q.rootPath === '/') b = Bitmap.full(size);
  else {
    const [a, z] = pathRange(ws, ...descendantRange(q.rootPath));
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

export function bitsOfNids(ws: Workspace, nids: Int32Array | readonly number[]): Bitmap {
  const b = new Bitmap(ws.table.nids.length);
  for (const nid of nids) {
    const o = ordinalOf(ws, nid);
    if (o >= 0) b.set(o);
  }
  return b;
}

function bitsOfColumn(col: Column, size: number): Bitmap {
  const b = new Bitmap(size);
  const ords = col.ords;
  for (let i = 0; i < ords.length; i++) if (ords[i]! >= 0) b.set(ords[i]!);
  return b;
}

export async function conditionBits(ctx: ConditionContext, c: Condition): Promise<Bitmap> {
  const ws = ctx.ws;
  const size = ws.table.nids.length;
  switch (c.kind) {
    case 'never':
      return new Bitmap(size);
    case 'readable': {
      const paths = ws.table.paths;
      return ctx.cached(`${ws.key}\u0000readable\u0000${JSON.stringify(c.rules)}`, () => {
        const b = new Bitmap(size);
        for (let i = 0; i < size; i++) if (readableBy(c.rules, paths.at(i))) b.set(i);
        return b;
      }).clone();
    }
    case 'childOf': {
      // Within the path's descendants (a range of ordinals in path order), those with no `/` after it.
      const b = new Bitmap(size);
      const [a, z] = pathRange(ws, ...descendantRange(c.path));
      const from = c.path === '/' ? 1 : c.path.length + 1;
      const paths = ws.table.paths;
      for (let i = a; i < z; i++) if (paths.at(i).indexOf('/', from) < 0) b.set(i);
      return b;
    }
    case 'descendantOf': {
      const b = new Bitmap(size);
      // Overlapping ancestors (`/a|/a|/a/b|…`, up to 100) set each ordinal once: work stays O(size).
      const spans = c.paths.map((p) => pathRange(ws, ...descendantRange(p))).sort((x, y) => x[0] - y[0]);
      let done = 0;
      for (const [a, z] of spans) {
        for (let i = Math.max(a, done); i < z; i++) b.set(i);
        done = Math.max(done, z);
      }
      return c.negate ? Bitmap.full(size).andNot(b) : b;
    }
    case 'exists': {
      const b = bitsOfColumn(await ctx.column(c.name), size);
      return c.exists ? b : Bitmap.full(size).andNot(b);
    }
    case 'like': {
      const patterns = c.patterns.map(compileLike);
      const b = await match(ctx, c.target, c.caseInsensitive, (_kind, _num, str) => likeMatchAny(patterns, str));
      return c.negate ? Bitmap.full(size).andNot(b) : b;
    }
    case 'ranges': {
      let b: Bitmap;
      if (c.target.kind === 'uuid') {
        // eq / ne on the UUID (see `canRun`): the nodes of these ids, looked up by the source.
        const ids = uuidEqualities(c.ranges);
        if (ids === undefined) throw new Error('uuid conditions other than eq and ne are served by SQL');
        b = ids.length === 0 ? new Bitmap(size) : bitsOfNids(ws, await ctx.nidsOfIds(ids));
        return c.negate ? Bitmap.full(size).andNot(b) : b;
      }
      if (c.target.kind === 'property') {
        const col = await ctx.column(c.target.name);
        b = new Bitmap(size);
        for (const r of c.ranges) rangeInto(col, r, b);
        if (c.negate) return bitsOfColumn(col, size).andNot(b);
        return b;
      }
      const hit = (kind: ValueKind, num: number, str: string) => c.ranges.some((r) => inRange(r, kind, num, str));
      b = await match(ctx, c.target, false, hit);
      return c.negate ? Bitmap.full(size).andNot(b) : b;
    }
  }
}

/** Ordinals having a value of `target` for which `test` holds. */
async function match(
  ctx: ConditionContext, target: Target, folded: boolean, test: (kind: ValueKind, num: number, str: string) => boolean,
): Promise<Bitmap> {
  const ws = ctx.ws;
  const size = ws.table.nids.length;
  const b = new Bitmap(size);
  switch (target.kind) {
    case 'property': {
      matchInto(await ctx.column(target.name), folded, test, b);
      return b;
    }
    case 'name': {
      const names = folded ? foldedNamesOf(ws) : namesOf(ws);
      for (let i = 0; i < size; i++) if (test('string', NaN, names[i]!)) b.set(i);
      return b;
    }
    case 'path': {
      const paths = ws.table.paths;
      for (let i = 0; i < size; i++) {
        const path = paths.at(i);
        if (test('string', NaN, folded ? path.toLowerCase() : path)) b.set(i);
      }
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
