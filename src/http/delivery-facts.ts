// HTTP layer: what of a delivery request its answer depends on, read one way for both paths that
// answer it: the route (routes/delivery.ts, through Fastify) and the path for cached answers
// (cached-hits.ts, before Fastify). The endpoint the canonical path reaches, the query checks, and the
// facts the response-cache policy keys and decides on.
import type { SiteConfig } from '../config/load-config.js';
import type { EndpointMatch, EndpointRegistry } from '../delivery/endpoint-registry.js';
import type { TraitValues } from '../delivery/pages/traits.js';
import { checkQueryText, type QueryParams } from '../delivery/parse-request.js';
import type { PagesRegistry } from '../delivery/pages/pages-registry.js';
import { PetalError } from '../errors.js';
import type { Caller } from '../security/security-service.js';
import { LIMITS } from './limits.js';
import type { DeliveryRequestFacts } from './response-cache-policy.js';

export const REST_PREFIX = '/.rest';

/** The path after `/.rest` of a canonical path (see security/canonical-path: decoded exactly once). */
export function restPathOf(canonical: string): string {
  const rest = canonical.slice(REST_PREFIX.length);
  return rest === '' ? '/' : rest;
}

export interface DeliveryFactsSources {
  readonly registry: EndpointRegistry;
  readonly site: () => SiteConfig;
  readonly pages?: PagesRegistry;
}

/** The request as both paths see it. */
export interface DeliveryRequestSide {
  readonly canonicalPath: string;
  readonly query: QueryParams;
  readonly acceptLanguage: string | undefined;
  readonly ifNoneMatch: string | readonly string[] | undefined;
  readonly caller: Caller;
  readonly preview: boolean;
  /** The visitor's trait values, read only for a personalized endpoint. */
  readonly traits: (pages: PagesRegistry) => TraitValues;
}

export interface ResolvedDelivery {
  readonly match: EndpointMatch & { readonly rest: string };
  readonly facts: DeliveryRequestFacts;
}

/**
 * The facts of a request to an endpoint, or undefined when no endpoint serves its path (`{endpoint}@nodes`
 * without the slash is not served: URI rules see the path as written, and it must not reach what
 * `{endpoint}/@nodes` reaches under other rules). Throws a 400 for a query no store can answer alike.
 */
export function deliveryFacts(o: DeliveryFactsSources, r: DeliveryRequestSide): ResolvedDelivery | undefined {
  const restPath = restPathOf(r.canonicalPath);
  const match = o.registry.match(restPath);
  if (match === undefined || match.rest === undefined) return undefined;
  const query = r.query;
  let values = 0;
  for (const key in query) {
    const v = query[key];
    values += Array.isArray(v) ? v.length : 1;
  }
  if (values > LIMITS.maxQueryParams) {
    throw new PetalError('badRequest', `At most ${LIMITS.maxQueryParams} query parameters`);
  }
  checkQueryText(query);
  const definition = match.definition;
  // A personalized answer depends on the visitor's traits: they are part of the cache key and of Vary.
  const pages = o.pages;
  const traits = definition.personalized && pages !== undefined ? r.traits(pages) : undefined;
  const facts: DeliveryRequestFacts = {
    endpoint: definition, restPath, canonicalPath: r.canonicalPath, query, acceptLanguage: r.acceptLanguage, site: o.site(),
    roleKey: r.caller.roleKey, anonymous: r.caller.via === 'anonymous', preview: r.preview,
    ...(traits !== undefined ? { traits } : {}), traitHeaders: pages?.varyHeaders ?? '',
    ifNoneMatch: r.ifNoneMatch,
  };
  return { match: match as ResolvedDelivery['match'], facts };
}
