// Hardening III point 4: the time one hostile JSON body costs the main thread, before (Fastify's own
// JSON parser: JSON.parse of the whole body, then the Nodes API's checks) and after (json-body.ts: the
// linear scan refuses it before JSON.parse), on the Nodes API's route as nodes.ts registers it (8 MiB
// bodies, its JSON limits), and the same for a real 1,000-node write that both accept. Each request
// goes through `inject` (no network); `transport` is the same body as text/plain to a route that
// ignores it (what receiving it costs either way). The event loop's longest stall during the request
// (the gap between ticks of a 1 ms timer) is measured beside it. With --expose-gc the heap is
// collected before each request, so that one request's garbage (2.5 million arrays) is not timed in
// the next. Usage:
//   node --expose-gc --import tsx bench/json-bodies.ts [rounds=5] [--dist]
import Fastify, { type FastifyInstance } from 'fastify';
import { load } from './bench-store.js';

const { registerJsonBodyParser } = await load<typeof import('../src/http/json-body.js')>('http/json-body.js');
const { JSON_BODY_LIMITS } = await load<typeof import('../src/http/limits.js')>('http/limits.js');
const { handleError } = await load<typeof import('../src/http/error-handler.js')>('http/error-handler.js');
const { parseNodeBody, WRITE_LIMITS } = await load<typeof import('../src/nodes-api/parse-node-body.js')>('nodes-api/parse-node-body.js');

const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5);

const page = (i: number) => ({
  name: `p${i}`, type: 'mgnl:page',
  properties: Array.from({ length: 40 }, (_, j) => ({ name: `prop${j}`, type: 'String', multiple: false, values: [`value ${j} of page ${i}`] })),
});
const BODIES: Record<string, string> = {
  'deep: 3,000,000 nested arrays (6 MB)': `${'['.repeat(3_000_000)}${']'.repeat(3_000_000)}`,
  'wide: {"properties":[[],[],…]} 2,500,000 (7.5 MB)': `{"properties":[${Array(2_500_000).fill('[]').join(',')}]}`,
  'wide: 3,500,000 numbers (7 MB)': `[${Array(3_500_000).fill('1').join(',')}]`,
  'accepted: 1,000 nodes of 40 properties (3 MB)': JSON.stringify({ name: 'big', type: 'mgnl:page', nodes: Array.from({ length: 999 }, (_, i) => page(i)) }),
};

async function app(scanned: boolean): Promise<FastifyInstance> {
  const a = Fastify({ bodyLimit: WRITE_LIMITS.maxBodyBytes });
  if (scanned) registerJsonBodyParser(a);
  a.setErrorHandler(handleError);
  a.put('/ignored', async () => ({ ignored: true }));
  a.put('/nodes', { config: { jsonBody: { ...JSON_BODY_LIMITS, maxItems: WRITE_LIMITS.maxJsonItems } } }, async (request) => {
    const node = parseNodeBody(request.body, { parentPath: '/' });
    return { name: node.name };
  });
  await a.ready();
  return a;
}

/** Starts a 1 ms ticker; the function it returns stops it and gives the longest gap between ticks. */
function stallMeter(): () => number {
  let last = performance.now();
  let max = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
  }, 1);
  return () => {
    clearInterval(ticker);
    return Math.max(max, performance.now() - last);
  };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

async function measure(a: FastifyInstance, body: string, url = '/nodes', type = 'application/json'): Promise<{ ms: number; stallMs: number; status: number; answer: string }> {
  const times: number[] = [];
  const stalls: number[] = [];
  let status = 0;
  let answer = '';
  for (let r = 0; r < rounds; r++) {
    (globalThis as { gc?: () => void }).gc?.();
    const stall = stallMeter();
    const start = performance.now();
    const res = await a.inject({ method: 'PUT', url, payload: body, headers: { 'content-type': type } });
    times.push(performance.now() - start);
    stalls.push(stall());
    status = res.statusCode;
    answer = res.body.slice(0, 90);
  }
  return { ms: median(times), stallMs: median(stalls), status, answer };
}

const before = await app(false);
const after = await app(true);
console.log(`median of ${rounds} requests each; stall = longest event-loop delay during the request\n`);
for (const [name, body] of Object.entries(BODIES)) {
  const t = await measure(after, body, '/ignored', 'text/plain');
  console.log(`${name.padEnd(50)} ${'transport'.padEnd(9)} ${t.ms.toFixed(1).padStart(8)} ms  stall ${t.stallMs.toFixed(1).padStart(7)} ms`);
  for (const [label, a] of [['before', before], ['after', after]] as const) {
    const m = await measure(a, body);
    console.log(`${name.padEnd(50)} ${label.padEnd(9)} ${m.ms.toFixed(1).padStart(8)} ms  stall ${m.stallMs.toFixed(1).padStart(7)} ms  ${m.status} ${m.answer}`);
  }
}
await before.close();
await after.close();
