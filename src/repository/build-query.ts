// Repository layer: types a QuerySpec's filter values by the kinds the properties are stored with, so
// that `price[gt]=100` compares numbers on a Long and text on a String, and gives the StoreQuery.
import { PetalError } from '../errors.js';
import type {
  Condition, FilterSpec, QuerySpec, RawOperator, StoreQuery, Target, TypedRange, ValueKind,
} from '../query/ast.js';

// One way to split the digits only: `\d+\.?\d*` backtracked quadratically over a long run of digits.
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(Z|[+-]\d{2}:\d{2})$/;
const DAY = 86_400_000;

/** A filter value as a point or (for a bare date) a day: [start, end). */
interface Point {
  readonly kind: ValueKind;
  readonly start: string | number;
  /** Exclusive end of a bare date's day; undefined for exact values. */
  readonly end?: number;
}

function parseDateValue(v: string): { start: number; end?: number } | undefined {
  const d = DATE_ONLY.exec(v);
  if (d) {
    const start = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]));
    const check = new Date(start);
    if (check.getUTCFullYear() !== Number(d[1]) || check.getUTCMonth() !== Number(d[2]) - 1 || check.getUTCDate() !== Number(d[3])) return undefined;
    return { start, end: start + DAY };
  }
  const m = DATE_TIME.exec(v);
  if (!m) return undefined;
  // Date.parse rolls 2024-02-30 over to March: check the calendar day and the clock first.
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (day.getUTCFullYear() !== Number(m[1]) || day.getUTCMonth() !== Number(m[2]) - 1 || day.getUTCDate() !== Number(m[3])) return undefined;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : { start: t };
}

function toPoint(kind: ValueKind, v: string): Point | undefined {
  switch (kind) {
    case 'string': return { kind, start: v };
    case 'number': return NUMBER.test(v.trim()) ? { kind, start: Number(v.trim()) } : undefined;
    case 'boolean': {
      const t = v.trim().toLowerCase();
      return t === 'true' || t === 'false' ? { kind, start: t } : undefined;
    }
    case 'date': {
      const d = parseDateValue(v.trim());
      return d && (d.end !== undefined ? { kind, start: d.start, end: d.end } : { kind, start: d.start });
    }
  }
}

const FORMAT_HINT: Readonly<Record<ValueKind, string>> = {
  string: 'text', number: 'a number', boolean: 'true or false',
  date: "a date in yyyy-MM-dd or yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
};

/** The typed forms of one value, one per stored kind that accepts it; 400 when none does. */
function pointsOf(param: string, kinds: readonly ValueKind[], v: string): Point[] {
  const out: Point[] = [];
  for (const k of kinds) {
    const p = toPoint(k, v);
    if (p) out.push(p);
  }
  if (out.length === 0) {
    throw new PetalError('invalidValueFormat', `${param}: "${v}" is not ${kinds.map((k) => FORMAT_HINT[k]).join(' or ')}`);
  }
  return out;
}

function rangeFor(op: RawOperator, p: Point): TypedRange {
  const bare = p.end !== undefined;
  const lo = (value: string | number, inclusive: boolean) => ({ value, inclusive });
  switch (op) {
    case 'eq': case 'ne':
      return bare ? { kind: p.kind, lo: lo(p.start, true), hi: lo(p.end!, false) } : { kind: p.kind, lo: lo(p.start, true), hi: lo(p.start, true) };
    case 'gt': return { kind: p.kind, lo: bare ? lo(p.end!, true) : lo(p.start, false) };
    case 'gte': return { kind: p.kind, lo: lo(p.start, true) };
    case 'lt': return { kind: p.kind, hi: lo(p.start, false) };
    case 'lte': return { kind: p.kind, hi: bare ? lo(p.end!, false) : lo(p.start, true) };
    default: throw new Error(`not a comparison: ${op}`);
  }
}

function between(from: Point, to: Point): TypedRange {
  return {
    kind: from.kind,
    lo: { value: from.start, inclusive: true },
    hi: to.end !== undefined ? { value: to.end, inclusive: false } : { value: to.start, inclusive: true },
  };
}

function conditionOf(f: Extract<FilterSpec, { kind: 'filter' }>, kindsOf: (name: string) => readonly ValueKind[], defaultSuffix?: string): Condition {
  const { param, target, op, values } = f;
  if (target.kind === 'property' && defaultSuffix !== undefined && target.name.endsWith(defaultSuffix)) {
    return { kind: 'never' }; // the default language has no suffix: `title_en` names nothing
  }
  if (op === 'null') {
    const v = (values[0] ?? '').trim().toLowerCase();
    if (values.length !== 1 || (v !== 'true' && v !== 'false')) {
      throw new PetalError('invalidValueFormat', `${param}: expected true or false, got "${values.join('|')}"`);
    }
    return { kind: 'exists', name: (target as Extract<Target, { kind: 'property' }>).name, exists: v === 'false' };
  }
  if (op === 'like' || op === 'ilike') {
    return { kind: 'like', target, caseInsensitive: op === 'ilike', patterns: op === 'ilike' ? values.map((v) => v.toLowerCase()) : values };
  }
  const kinds: readonly ValueKind[] = target.kind === 'property' ? (kindsOf(target.name).length > 0 ? kindsOf(target.name) : ['string']) : ['string'];
  const ranges: TypedRange[] = [];
  if (op === 'in' || op === 'not-in') {
    for (const v of values) {
      const i = v.indexOf('~');
      if (i < 0) throw new PetalError('invalidQuery', `${param}: expected a range from~to, got "${v}"`);
      const fromText = v.slice(0, i);
      const toText = v.slice(i + 1);
      for (const from of pointsOf(param, kinds, fromText)) {
        const to = toPoint(from.kind, toText);
        if (!to) throw new PetalError('invalidValueFormat', `${param}: "${toText}" is not ${FORMAT_HINT[from.kind]}`);
        ranges.push(between(from, to));
      }
    }
    return { kind: 'ranges', target, negate: op === 'not-in', ranges };
  }
  for (const v of values) for (const p of pointsOf(param, kinds, v)) ranges.push(rangeFor(op, p));
  return { kind: 'ranges', target, negate: op === 'ne', ranges };
}

export interface QueryCatalog {
  /** Kinds a property is stored with in the workspace (empty when no node has it). */
  kindsOf(name: string): readonly ValueKind[];
  /** Primary types present in the workspace. */
  readonly typesPresent: readonly string[];
}

/**
 * A filter on a property hidden from the query (QuerySpec.hiddenProperties) is checked as any filter is,
 * then holds as it would on a property no node has: `[null]=true` for every node, anything else for none.
 */
function hiddenCondition(f: Extract<FilterSpec, { kind: 'filter' }>, defaultSuffix?: string): Condition | null {
  const c = conditionOf(f, () => [], defaultSuffix);
  return c.kind === 'exists' && !c.exists ? null : { kind: 'never' };
}

const isHidden = (spec: QuerySpec, t: Target): boolean =>
  spec.hiddenProperties !== undefined && t.kind === 'property' && spec.hiddenProperties.has(t.name);

export function buildStoreQuery(spec: QuerySpec, catalog: QueryCatalog, extra: readonly Condition[] = []): StoreQuery {
  const conditions: Condition[] = [...extra];
  for (const f of spec.filters) {
    if (f.kind === 'ancestor') conditions.push({ kind: 'descendantOf', paths: f.paths });
    else if (isHidden(spec, f.target)) {
      const c = hiddenCondition(f, spec.defaultLocaleSuffix);
      if (c !== null) conditions.push(c);
    } else conditions.push(conditionOf(f, (n) => catalog.kindsOf(n), spec.defaultLocaleSuffix));
  }
  const types = spec.typeFilter === null ? null : catalog.typesPresent.filter(spec.typeFilter);
  return {
    workspace: spec.workspace,
    rootPath: spec.rootPath,
    types,
    conditions,
    fullText: spec.fullText,
    ...(spec.hiddenProperties !== undefined && spec.fullText.length > 0 ? { fullTextHidden: [...spec.hiddenProperties] } : {}),
    // A key no node holds leaves the order to the next key: a hidden one is dropped.
    orderBy: spec.hiddenProperties === undefined ? spec.orderBy : spec.orderBy.filter((o) => !isHidden(spec, o.target)),
    offset: spec.offset,
    limit: spec.limit,
  };
}
