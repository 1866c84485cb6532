// Request logging: one line per request at `info`, and one per unexpected error, each naming the
// request id the caller got in `x-request-id` (requests have no child loggers, so every line says it).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

let t: TestApp;

describe('request logs', () => {
  beforeAll(async () => {
    t = await createTestApp({
      logger: pino({ level: 'info' }, sink),
      subtreeCache: false, // every request reads the store, so a failing store fails the request
      definitions: { 'delivery/pages_v1.yaml': 'workspace: website\n$type: jcrDeliveryEndpoint_v2\ndepth: 1\n' },
      content: { 'website.site.yaml': 'site:\n  jcr:primaryType: mgnl:page\n  title: Site\n' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('logs each request once with its id, method, URL and status', async () => {
    lines.length = 0;
    const res = await t.app.inject({ url: '/.rest/delivery/pages/v1/site' });
    expect(res.statusCode).toBe(200);
    const id = res.headers['x-request-id'];
    expect(typeof id).toBe('string');
    const mine = lines.filter((l) => l.reqId === id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ msg: 'request', method: 'GET', url: '/.rest/delivery/pages/v1/site', status: 200 });
  });

  it('logs an unexpected error with the request id, and answers 500 without a stack', async () => {
    lines.length = 0;
    const store = t.store as unknown as { getSubtree: (...a: unknown[]) => Promise<unknown> };
    const original = store.getSubtree;
    store.getSubtree = () => Promise.reject(new Error('disk on fire'));
    try {
      const res = await t.app.inject({ url: '/.rest/delivery/pages/v1/site?fresh=1', headers: { 'x-request-id': 'trace-42' } });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: { code: 'unknown', message: expect.any(String) } });
      expect(res.body).not.toContain('disk on fire');
      expect(res.headers['x-request-id']).toBe('trace-42');
      const errors = lines.filter((l) => l.level === 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ reqId: 'trace-42', err: { message: 'disk on fire' } });
    } finally {
      store.getSubtree = original;
    }
  });
});
