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
