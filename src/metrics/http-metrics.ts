// Metrics: requests by route kind, method and status, and their latency. The only metrics work on the
// request path: one onResponse hook, a map lookup, a counter increment and a histogram observation.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { RouteKind } from './route-kind.js';

/** Seconds: from a cached answer (well under a millisecond) to a slow export or import. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  readonly count: Counter.Internal;
  readonly latency: { observe(seconds: number): void };
}

export function registerHttpMetrics(app: FastifyInstance, registry: Registry, kindOf: (request: FastifyRequest) => RouteKind): void {
  const requests = new Counter({
    name: 'petal_http_requests_total', help: 'HTTP requests answered, by kind of route, method and status',
    labelNames: ['route', 'method', 'status'] as const, registers: [registry],
  });
  const duration = new Histogram({
    name: 'petal_http_request_duration_seconds', help: 'Time to answer HTTP requests, by kind of route and method',
    labelNames: ['route', 'method'] as const, buckets: BUCKETS, registers: [registry],
  });
  // prom-client hashes the labels on every `labels()` call; the children are looked up once per label set.
  const series = new Map<string, Series>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = kindOf(request);
    const method = request.method;
    const status = reply.statusCode;
    const key = `${route} ${method} ${status}`;
    let s = series.get(key);
    if (s === undefined) {
      s = { count: requests.labels(route, method, String(status)), latency: duration.labels(route, method) };
      series.set(key, s);
    }
    s.count.inc();
    s.latency.observe(reply.elapsedTime / 1000);
    done();
  });
}
