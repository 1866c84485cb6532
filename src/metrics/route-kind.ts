// Metrics: the kind of route a request went to, the `route` label of the HTTP metrics. A label holds
// a few fixed values, never the URL: every distinct label set is a series Prometheus keeps forever.
import type { FastifyRequest } from 'fastify';
import type { EndpointRegistry } from '../delivery/endpoint-registry.js';
import { parseMethod } from '../delivery/parse-request.js';

export const ROUTE_KINDS = [
  'delivery_read', 'delivery_children', 'delivery_query', 'nodes', 'commands', 'shop', 'dam', 'imaging',
  'auth', 'import', 'export', 'ops', 'other',
] as const;
export type RouteKind = typeof ROUTE_KINDS[number];

/** Route patterns (context path removed) by their first segments; the longest prefix wins. */
const PREFIXES: readonly (readonly [string, RouteKind | 'delivery'])[] = [
  ['/.rest/nodes/v1', 'nodes'], ['/.rest/properties/v1', 'nodes'], ['/.rest/commands/v2', 'commands'],
  ['/.rest/import/v1', 'import'], ['/.rest/export/v1', 'export'], ['/.rest', 'delivery'],
  ['/shop/v1', 'shop'], ['/dam', 'dam'], ['/.imaging', 'imaging'], ['/.auth', 'auth'],
  ['/.health', 'ops'], ['/.metrics', 'ops'],
];

const REST_PREFIX = '/.rest';
const SLASH = 0x2f;
const MEMO_MAX = 4_096;
/** Longer paths are classified every time: 4,096 of 8 KB each would hold 64 MB. */
const MEMO_LONGEST_PATH = 256;

/** The kind of a delivery request by the method its endpoint path names. */
export function deliveryRouteKind(method: 'read' | 'children' | 'query'): RouteKind {
  return method === 'read' ? 'delivery_read' : method === 'children' ? 'delivery_children' : 'delivery_query';
}

/** The kind of a route pattern, or of a path (context path removed): `delivery` for the delivery route's. */
export function kindOfPattern(pattern: string): RouteKind | 'delivery' {
  // No `prefix + '/'`: the cached-hits path asks this per request, and a concatenation per prefix
  // made a string and flattened it each time (1.5 µs a request in a profile).
  for (const [prefix, kind] of PREFIXES) {
    if (pattern.startsWith(prefix) && (pattern.length === prefix.length || pattern.charCodeAt(prefix.length) === SLASH)) return kind;
  }
  return 'other';
}

/**
 * Classifies requests for the metrics hook. One delivery route serves the three delivery methods, so
 * its requests are told apart by the endpoint their path matches (as the route does); the answer per
 * path is remembered, since popular paths repeat.
 */
export function routeClassifier(registry: EndpointRegistry, contextPath: string): (request: FastifyRequest) => RouteKind {
  const byPattern = new Map<string, RouteKind | 'delivery'>();
  let byPath = new Map<string, RouteKind>();
  const deliveryKind = (canonical: string): RouteKind => {
    const rest = canonical.slice(REST_PREFIX.length);
    const match = registry.match(rest === '' ? '/' : rest);
    if (match === undefined) return 'other'; // no endpoint there: a 404 (or template annotations)
    return deliveryRouteKind(parseMethod(match.rest).kind);
  };
  return (request) => {
    const pattern = request.routeOptions.url;
    if (pattern === undefined) return 'other'; // no route: 404s, refusals before routing
    let kind = byPattern.get(pattern);
    if (kind === undefined) {
      kind = kindOfPattern(pattern.startsWith(contextPath) ? pattern.slice(contextPath.length) : pattern);
      byPattern.set(pattern, kind);
    }
    if (kind !== 'delivery') return kind;
    const canonical = request.canonicalPath;
    if (canonical.length > MEMO_LONGEST_PATH) return deliveryKind(canonical);
    let found = byPath.get(canonical);
    if (found === undefined) {
      found = deliveryKind(canonical);
      // Definitions reload rarely; a bounded memo also forgets a moved endpoint soon enough.
      if (byPath.size >= MEMO_MAX) byPath = new Map();
      byPath.set(canonical, found);
    }
    return found;
  };
}
