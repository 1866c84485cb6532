// HTTP layer: the one query-string parser. Fastify's router is given it (routerOptions.querystringParser)
// and the path for cached answers (cached-hits.ts) calls it too: a second parser could read another
// query than the route did, and the cache key is made of the parsed query (response-cache-key.ts).
import querystring from 'fast-querystring';
import type { QueryParams } from '../delivery/parse-request.js';

/** The query after the target's first `?` (a fragment never reaches here: request-guard.ts refuses it). */
export function parseQueryString(query: string): QueryParams {
  return query.length === 0 ? {} : querystring.parse(query) as QueryParams;
}
