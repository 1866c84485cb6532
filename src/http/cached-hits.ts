// HTTP layer: cached delivery answers given before Fastify's pipeline. A cache hit for a caller
// without credentials costs the socket write and little else, but Fastify's routing, hooks and reply
// cost as much again (bench/RESULTS.md, issue 31). So the server's request listener asks here first:
// an anonymous GET whose answer the cache holds now is answered at once, with the headers, metrics and
// log line the pipeline would give it; anything else (credentials, cookies, an Origin, the preview, a
// miss, changes not yet applied, a refusal by the URI permissions, a bad query) goes to Fastify
// untouched, which is always right. The decisions are the pipeline's own functions: the canonical
// path memo of the security hook, the router's query parser, the route's facts and the cache policy.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseMethod } from '../delivery/parse-request.js';
import { deliveryRouteKind, kindOfPattern, type RouteKind } from '../metrics/route-kind.js';
import type { RecordAnswer } from '../metrics/http-metrics.js';
import type { SecurityService } from '../security/security-service.js';
import type { CanonicalPaths } from './canonical-paths.js';
import { deliveryFacts, REST_PREFIX, type DeliveryFactsSources, type ResolvedDelivery } from './delivery-facts.js';
import { parseQueryString } from './query-string.js';
import { requestIdOf } from './request-id.js';
import type { RequestLogLine } from './request-log.js';
import type { Outgoing, ResponseCachePolicy } from './response-cache-policy.js';

export interface CachedHitsOptions {
  /** The delivery route's policy (routes/delivery.ts): the same cache, keys and headers. */
  readonly policy: ResponseCachePolicy;
  readonly facts: DeliveryFactsSources;
  readonly security: SecurityService;
  readonly canonicalPaths: CanonicalPaths;
  readonly contextPath: string;
  /** Publishing on: requests under the preview context path are the pipeline's; answers are logged as `live`. */
  readonly previewContextPath?: string;
  /** True while the server drains (graceful-close.ts): answers then say `Connection: close`. */
  readonly draining: () => boolean;
  /** The HTTP metrics' recorder, when metrics are on. */
  readonly record?: RecordAnswer;
  /** Writes the request's log line, when request logging is on. */
  readonly log?: (line: RequestLogLine) => void;
}

/** Longer targets go to the pipeline: the canonical-path memo keeps only shorter ones. */
const LONGEST_TARGET = 512;
const JSON_TYPE = 'application/json; charset=utf-8';
/** Personalized endpoints go to the pipeline, so no traits are ever read here. */
const NO_TRAITS = (): ReadonlyMap<string, string> => new Map();

/** A cached answer's route kind (for the metrics) and header lists, the request id's slot left blank. */
interface Sent {
  readonly kind: RouteKind;
  json?: string[];
  /** The body `json` was made for (its content-length). */
  body?: Buffer | string;
  notModified?: string[];
}

type Answered = Exclude<Outgoing, { kind: 'error' }>;

const REQUEST_ID_AT = 3;

/** The headers every answer starts with, then the answer's own (the pipeline's order). */
function headOf(headers: Readonly<Record<string, string>>): string[] {
  const list = ['x-content-type-options', 'nosniff', 'x-request-id', ''];
  for (const name in headers) list.push(name, headers[name]!);
  return list;
}

export class CachedHits {
  readonly #o: CachedHitsOptions;
  readonly #prefix: string;
  readonly #sent = new WeakMap<object, Sent>();

  constructor(o: CachedHitsOptions) {
    this.#o = o;
    this.#prefix = `${o.contextPath}${REST_PREFIX}/`;
  }

  /** Answers the request and returns true, or returns false having written nothing. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET') return false;
    const started = performance.now();
    const h = req.headers;
    if (h.authorization !== undefined || h.cookie !== undefined || h.origin !== undefined
      || h['content-length'] !== undefined || h['transfer-encoding'] !== undefined) return false;
    const url = req.url;
    if (url === undefined || url.length > LONGEST_TARGET || !url.startsWith(this.#prefix) || url.includes('#')) return false;
    const o = this.#o;
    if (o.previewContextPath !== undefined && url.startsWith(o.previewContextPath)) return false;
    if (o.draining()) return false;
    const found = this.#find(url, h['accept-language'], h['if-none-match']);
    if (found === undefined) return false;
    const [resolved, out] = found;
    const id = requestIdOf(h);
    const sent = this.#sentOf(out, resolved);
    // The answer's header list, made once per cached answer, with this request's id in its place:
    // writeHead turns the list into the header block before it returns, so it can be reused.
    const head = out.kind === 'json' ? sent.json! : sent.notModified!;
    head[REQUEST_ID_AT] = id;
    const status = out.kind === 'json' ? 200 : 304;
    res.writeHead(status, head);
    if (out.kind === 'json') res.end(out.body);
    else res.end();
    const ms = performance.now() - started;
    o.record?.(sent.kind, 'GET', status, ms / 1000);
    o.log?.({ reqId: id, method: 'GET', url, ...(o.previewContextPath !== undefined ? { state: 'live' as const } : {}), status, ms: Math.round(ms * 10) / 10 });
    return true;
  }

  /** The endpoint and the cached answer, when the pipeline would give this very answer to an anonymous caller. */
  #find(url: string, acceptLanguage: string | undefined, ifNoneMatch: string | undefined): [ResolvedDelivery, Answered] | undefined {
    const o = this.#o;
    const cp = o.canonicalPaths.of(url);
    // Other APIs live under /.rest too (nodes, commands, import, export): only the delivery route's paths.
    if (!cp.ok || kindOfPattern(cp.path) !== 'delivery') return undefined;
    const caller = o.security.anonymous();
    if (o.security.uriAccess(caller).decide(cp.path, 'GET') === 'deny') return undefined;
    const q = url.indexOf('?');
    let resolved: ResolvedDelivery | undefined;
    try {
      resolved = deliveryFacts(o.facts, {
        canonicalPath: cp.path, query: parseQueryString(q === -1 ? '' : url.slice(q + 1)), acceptLanguage, ifNoneMatch,
        caller, preview: false, traits: NO_TRAITS,
      });
    } catch {
      return undefined; // a refused query: the pipeline answers its 400
    }
    // Personalized answers depend on traits read from headers, cookies and the query: the pipeline's.
    if (resolved === undefined || resolved.match.definition.personalized) return undefined;
    const out = o.policy.hit(resolved.facts);
    // A cached missing node goes out as errors do (the error handler's shape): the pipeline's too.
    return out === undefined || out.kind === 'error' ? undefined : [resolved, out];
  }

  /** What is sent for a cached answer, made on its first hit (an answer's headers object is its own, frozen). */
  #sentOf(out: Answered, resolved: ResolvedDelivery): Sent {
    let sent = this.#sent.get(out.headers);
    if (sent === undefined) {
      // The same path reaches the same endpoint for as long as the answer is cached (a reload drops it).
      sent = { kind: deliveryRouteKind(parseMethod(resolved.match.rest).kind) };
      this.#sent.set(out.headers, sent);
    }
    if (out.kind === 'json') {
      // Keyed by the headers object, checked against the body: a header list never goes out with another body.
      if (sent.json === undefined || sent.body !== out.body) {
        sent.body = out.body;
        const length = typeof out.body === 'string' ? Buffer.byteLength(out.body) : out.body.length;
        sent.json = [...headOf(out.headers), 'content-type', JSON_TYPE, 'content-length', String(length)];
      }
    } else {
      sent.notModified ??= headOf(out.headers);
    }
    return sent;
  }
}
