// Test helper: what Petal's error handler answers when a route throws `err` (a bare Fastify app with
// only http/error-handler.ts installed, so nothing else shapes the answer).
import Fastify from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import { handleError } from '../../src/http/error-handler.js';

export interface ErrorAnswer {
  readonly status: number;
  readonly headers: OutgoingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed JSON body, checked by the test
  readonly body: any;
}

export async function errorAnswer(err: unknown): Promise<ErrorAnswer> {
  const app = Fastify();
  app.setErrorHandler(handleError);
  app.get('/', async () => { throw err; });
  await app.ready();
  const res = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body) };
}
