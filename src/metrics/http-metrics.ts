// Metrics: requests by route kind, method and status, and their latency. The only metrics work on the
// request path is one onSend hook: a map lookup, two additions and a bucket search on plain numbers.
// onSend, not onResponse: the app already runs onSend hooks (graceful-close.ts), while a first
// onResponse hook makes Fastify listen for every response's `finish` and run another hook chain (about
// 10 % of a cached answer, measured), and only then times replies (`elapsedTime` is 0 without one): the
// start is taken in an onRequest hook, a phase the app runs anyway. So the latency is the time from the
// first hook to handing the answer to the socket. prom-client's own `inc`/`observe` validate and hash the labels on every call (even on a
// `labels()` child), so the series are kept here and handed to the registry when it is scraped.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MetricValueWithName, Registry } from 'prom-client';
import type { RouteKind } from './route-kind.js';

/** Seconds: from a cached answer (well under a millisecond) to a slow export or import. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const STARTED = 'petalMetricsStart';
declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the first onRequest hook of the metrics ran. */
    [STARTED]: number;
  }
}

interface Series {
  readonly route: RouteKind;
  readonly method: string;
  readonly status: number;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative), the last one past the largest bound. */
  readonly buckets: Float64Array;
}

/** The shape a prom-client Registry reads from each of its metrics (`get`, `reset`, a name). */
interface Collected {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  get(): { readonly name: string; readonly help: string; readonly type: 'counter' | 'histogram'; readonly aggregator: 'sum'; readonly values: readonly MetricValueWithName<string>[] };
  reset(): void;
}

/** Counts one answer: its route kind, method, status and the seconds it took. */
export type RecordAnswer = (route: RouteKind, method: string, status: number, seconds: number) => void;

/** Registers the hooks and metrics; returns the recorder, for answers given before Fastify (cached-hits.ts). */
export function registerHttpMetrics(app: FastifyInstance, registry: Registry, kindOf: (request: FastifyRequest) => RouteKind): RecordAnswer {
  let series = new Map<string, Series>();
  // The same series by route kind, method and status without a key string built per answer.
  let found = new Map<RouteKind, Map<string, Map<number, Series>>>();
  const record: RecordAnswer = (route, method, status, seconds) => {
    let s = found.get(route)?.get(method)?.get(status);
    if (s === undefined) {
      const key = `${route} ${method} ${status}`;
      s = series.get(key);
      if (s === undefined) {
        s = { route, method, status, count: 0, sum: 0, buckets: new Float64Array(BUCKETS.length + 1) };
        series.set(key, s);
      }
      let byMethod = found.get(route);
      if (byMethod === undefined) found.set(route, byMethod = new Map());
      let byStatus = byMethod.get(method);
      if (byStatus === undefined) byMethod.set(method, byStatus = new Map());
      byStatus.set(status, s);
    }
    s.count++;
    s.sum += seconds;
    let b = 0;
    while (b < BUCKETS.length && seconds > BUCKETS[b]!) b++;
    s.buckets[b]!++;
  };
  app.decorateRequest(STARTED, 0);
  app.addHook('onRequest', (request, _reply, done) => {
    request[STARTED] = performance.now();
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    record(kindOf(request), request.method, reply.statusCode, (performance.now() - request[STARTED]) / 1000);
    done(null, payload);
  });

  const requests: Collected = {
    name: 'petal_http_requests_total', help: 'HTTP requests answered, by kind of route, method and status', type: 'counter',
    get: () => ({
      name: requests.name, help: requests.help, type: requests.type, aggregator: 'sum',
      values: [...series.values()].map((s) => ({ labels: { route: s.route, method: s.method, status: s.status }, value: s.count })),
    }),
    reset: () => { series = new Map(); found = new Map(); },
  };
  const duration: Collected = {
    name: 'petal_http_request_duration_seconds', help: 'Time until HTTP answers are handed to the socket (bodies streamed after that not included), by kind of route and method', type: 'histogram',
    get: () => ({
      name: duration.name, help: duration.help, type: duration.type, aggregator: 'sum',
      values: histogramValues(duration.name, series.values()),
    }),
    reset: requests.reset,
  };
  // The registry takes any object of this shape; its TypeScript type names only prom-client's classes.
  registry.registerMetric(requests as unknown as Parameters<Registry['registerMetric']>[0]);
  registry.registerMetric(duration as unknown as Parameters<Registry['registerMetric']>[0]);
  return record;
}

/** Histogram samples by route and method (statuses merged): cumulative buckets, `+Inf`, sum and count. */
function histogramValues(name: string, all: Iterable<Series>): MetricValueWithName<string>[] {
  const merged = new Map<string, { route: RouteKind; method: string; count: number; sum: number; buckets: Float64Array }>();
  for (const s of all) {
    const key = `${s.route} ${s.method}`;
    let m = merged.get(key);
    if (m === undefined) {
      m = { route: s.route, method: s.method, count: 0, sum: 0, buckets: new Float64Array(BUCKETS.length + 1) };
      merged.set(key, m);
    }
    m.count += s.count;
    m.sum += s.sum;
    for (let i = 0; i < m.buckets.length; i++) m.buckets[i]! += s.buckets[i]!;
  }
  const values: MetricValueWithName<string>[] = [];
  for (const m of merged.values()) {
    const labels = { route: m.route, method: m.method };
    let cumulative = 0;
    BUCKETS.forEach((le, i) => {
      cumulative += m.buckets[i]!;
      values.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
    });
    values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: m.count });
    values.push({ metricName: `${name}_sum`, labels, value: m.sum });
    values.push({ metricName: `${name}_count`, labels, value: m.count });
  }
  return values;
}
