// Bench helper: requests per second of a listening Fastify app over a list of paths in turn
// (autocannon, 8 connections, in this process); any non-2xx answer or error aborts the bench.
import autocannon from 'autocannon';
import { span } from './smoke.js';
import type { FastifyInstance } from 'fastify';

export async function rate(app: FastifyInstance, paths: readonly string[], duration: number): Promise<number> {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  const r = await autocannon({
    url: `http://127.0.0.1:${address.port}`, connections: 8, ...span(duration), requests: paths.map((path) => ({ method: 'GET', path })),
  });
  if (r.non2xx + r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors (${paths[0]})`);
  return r.requests.average;
}
