// Metrics: the app's registry and GET /.metrics. A registry per app, not prom-client's global one: a
// process (a test run) builds many apps. The URI permissions guard the route like any other (no
// built-in role but superuser has it); a scraper may instead send the bearer token of petal.yaml
// `metrics.tokenEnv`, which the security hook lets through for this path only (`scrapeGate`).
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { EndpointRegistry } from '../delivery/endpoint-registry.js';
import { bearerMatcher } from './bearer-token.js';
import { registerHttpMetrics, type RecordAnswer } from './http-metrics.js';
import { routeClassifier } from './route-kind.js';
import { registerStateCollectors, type StateSources } from './state-collectors.js';

export const METRICS_PATH = '/.metrics';

/** build-app's `metrics` option (petal.yaml `metrics:`, the token read from its environment variable). */
export interface MetricsOptions {
  readonly enabled: boolean;
  /** The bearer token that may read the metrics, whatever the roles say. */
  readonly token?: string;
}

/** For the security hook: true when a request for `path` carries the scrape token (then no other check applies). */
export type ScrapeGate = (path: string, authorization: string | undefined) => boolean;

export function scrapeGateOf(o: MetricsOptions | undefined): ScrapeGate | undefined {
  if (o?.enabled === false || o?.token === undefined) return undefined;
  const matches = bearerMatcher(o.token);
  return (path, authorization) => path === METRICS_PATH && matches(authorization);
}

export function registerMetrics(
  app: FastifyInstance,
  o: StateSources & { readonly registry: EndpointRegistry; readonly contextPath: string },
): { readonly registry: Registry; readonly record: RecordAnswer } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const record = registerHttpMetrics(app, registry, routeClassifier(o.registry, o.contextPath));
  registerStateCollectors(registry, o);
  app.get(o.contextPath + METRICS_PATH, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(text);
  });
  return { registry, record };
}
