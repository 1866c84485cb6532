// Delivery layer: reads what a delivery request asks for from its decoded path and query string.
import { PetalError } from '../errors.js';

export type QueryValue = string | string[] | undefined;
export type QueryParams = Readonly<Record<string, QueryValue>>;

export type Method =
  | { readonly kind: 'query' }
  | { readonly kind: 'read'; readonly path: string }
  | { readonly kind: 'children'; readonly path: string };

const CHILDREN_SUFFIX = '@nodes';

/**
 * Splits the part of the URL after the endpoint path into the method and the node path (relative to
 * the endpoint's rootPath): '' or '/' → Query nodes; '/a/b' → Read node; '/a/b@nodes' or '/@nodes' →
 * Get children.
 */
export function parseMethod(rest: string): Method {
  if (rest === '' || rest === '/') return { kind: 'query' };
  if (rest.endsWith(CHILDREN_SUFFIX)) {
    const path = rest.slice(0, -CHILDREN_SUFFIX.length);
    return { kind: 'children', path: path === '' ? '/' : path };
  }
  return { kind: 'read', path: rest };
}

/** The first value of a parameter; repeated parameters use their first occurrence. */
export function firstValue(v: QueryValue): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** A comma-separated name list (`properties=title,name`); absent or empty → undefined. */
export function nameList(query: QueryParams, key: string): string[] | undefined {
  const raw = query[key];
  if (raw === undefined) return undefined;
  const values = Array.isArray(raw) ? raw : [raw];
  const names = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) return undefined;
  for (const n of names) {
    if (n.length > 256) throw new PetalError('badRequest', `${key}: property name too long`);
  }
  return names;
}

/** U+0000, or a surrogate (the second test tells a lone one from a pair). */
const SUSPECT = /[\u0000\ud800-\udfff]/;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Refuses query parameters (names and values) holding text no store can keep or compare alike:
 * U+0000 (PostgreSQL text cannot hold it; SQLite can, so the two would answer differently) and
 * unpaired UTF-16 surrogates (no UTF-8 form). Whatever the parameter (a filter, `q`, `orderBy`,
 * `lang`, `properties`, `@jcr:uuid`…): 400 naming it, on every store.
 */
export function checkQueryText(query: QueryParams): void {
  for (const key in query) {
    if (SUSPECT.test(key) && UNSTORABLE.test(key)) {
      throw new PetalError('badRequest', `Query parameter ${JSON.stringify(key)}: U+0000 and unpaired surrogates are not allowed in names`);
    }
    const v = query[key];
    if (v === undefined) continue;
    for (const value of Array.isArray(v) ? v : [v]) {
      if (SUSPECT.test(value) && UNSTORABLE.test(value)) {
        throw new PetalError('badRequest', `${key}: U+0000 and unpaired surrogates are not allowed in values`);
      }
    }
  }
}
