// Delivery layer: turns the query string of a Query nodes request into a QuerySpec (pagination,
// ordering, full text, filters); every bad input is a 400 naming the parameter.
import { PetalError } from '../errors.js';
import { toCanonicalName } from '../model/names.js';
import type { FilterSpec, FullTextTerm, OrderSpec, QuerySpec, Target } from '../query/ast.js';
import type { CompiledEndpoint } from './compile-endpoint.js';
import { parseFilter } from './parse-filter.js';
import { firstValue, type QueryParams } from './parse-request.js';

/** Parameters that are never filters. */
export const RESERVED_PARAMS: ReadonlySet<string> = new Set([
  'q', 'orderBy', 'offset', 'limit', 'lang', 'version', 'properties', 'excludeProperties', 'variants',
]);

/** Front ends of the original CMS add `mgnlPreview`, `mgnlChannel`, …: not filters. */
function isReserved(key: string): boolean {
  return RESERVED_PARAMS.has(key) || (key.startsWith('mgnl') && !key.includes(':'));
}

const MAX_OFFSET = 1_000_000_000;

function integerParam(query: QueryParams, key: string, min: number): number | undefined {
  const raw = firstValue(query[key]);
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new PetalError('invalidQuery', `${key}: expected a whole number >= ${min}, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min) throw new PetalError('invalidQuery', `${key}: expected a whole number >= ${min}, got "${raw}"`);
  return n;
}

export function parsePaging(query: QueryParams, endpoint: CompiledEndpoint): { offset: number; limit: number } {
  const def = endpoint.definition;
  const offset = integerParam(query, 'offset', 0) ?? 0;
  if (offset > MAX_OFFSET) throw new PetalError('invalidQuery', `offset: at most ${MAX_OFFSET}`);
  const limit = Math.min(integerParam(query, 'limit', 1) ?? def.limit, def.maxLimit);
  return { offset, limit };
}

export function parseOrderBy(raw: string | undefined): OrderSpec[] {
  if (raw === undefined || raw.trim() === '') return [];
  const out: OrderSpec[] = [];
  for (const part of raw.split(',')) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    if (words.length > 2) throw new PetalError('invalidQuery', `orderBy: "${part.trim()}" is not "<property> [asc|desc]"`);
    const dir = (words[1] ?? 'asc').toLowerCase();
    if (dir !== 'asc' && dir !== 'desc') throw new PetalError('invalidQuery', `orderBy: unknown direction "${words[1]}" (use asc or desc)`);
    out.push({ target: orderTarget(words[0]!), descending: dir === 'desc' });
    if (out.length > MAX_ORDER_KEYS) throw new PetalError('invalidQuery', `orderBy: at most ${MAX_ORDER_KEYS} keys`);
  }
  return out;
}

const MAX_ORDER_KEYS = 10;
/** As for filters (parse-filter.ts): a longer name is no property's, and only costs the store work. */
const MAX_NAME_LENGTH = 256;

function orderTarget(name: string): Target {
  if (name.length > MAX_NAME_LENGTH) throw new PetalError('invalidQuery', `orderBy: property name longer than ${MAX_NAME_LENGTH} characters`);
  if (name === '@name') return { kind: 'name' };
  if (name === '@path') return { kind: 'path' };
  if (name === '@id' || name === '@jcr:uuid' || name === 'jcr:uuid') return { kind: 'uuid' };
  if (name.startsWith('@')) throw new PetalError('invalidQuery', `orderBy: unknown key ${name} (use a property, @name or @path)`);
  return { kind: 'property', name: toCanonicalName(name) };
}

const WORD = /[\p{L}\p{N}\p{M}]+(\*)?/gu;

/** `q`: whole words, `word*` prefixes, all must match; a phrase of only wildcards is invalid. */
export function parseFullText(raw: string | undefined): FullTextTerm[] {
  if (raw === undefined || raw.trim() === '') return [];
  const terms: FullTextTerm[] = [];
  for (const m of raw.matchAll(WORD)) {
    const word = m[0].replace(/\*$/, '').toLowerCase();
    terms.push({ word, prefix: m[1] !== undefined });
  }
  if (terms.length === 0) {
    throw new PetalError('invalidQuery', `q: "${raw}" has no word to search for (a phrase of only wildcards is not a query)`);
  }
  if (terms.length > 32) throw new PetalError('invalidQuery', 'q: at most 32 words');
  return terms;
}

export function parseFilters(query: QueryParams): FilterSpec[] {
  const filters: FilterSpec[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || isReserved(key)) continue;
    filters.push(parseFilter(key, Array.isArray(value) ? value : [value]));
  }
  if (filters.length > 32) throw new PetalError('invalidQuery', 'at most 32 filters');
  return filters;
}

export function parseQuerySpec(query: QueryParams, endpoint: CompiledEndpoint, defaultLocale: string): QuerySpec {
  const def = endpoint.definition;
  return {
    workspace: def.workspace,
    rootPath: def.rootPath,
    typeFilter: endpoint.nodeType,
    filters: parseFilters(query),
    fullText: parseFullText(firstValue(query.q)),
    orderBy: parseOrderBy(firstValue(query.orderBy)),
    ...parsePaging(query, endpoint),
    defaultLocaleSuffix: `_${defaultLocale}`,
  };
}
