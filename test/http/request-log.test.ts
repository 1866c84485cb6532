// Request logging: one line per request at `info`, and one per unexpected error, each naming the
// request id the caller got in `x-request-id` (requests have no child loggers, so every line says it).
// With publishing on, a line names the URL as requested (a preview URL is rewritten before routing)
// and the state served, live or preview.
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
    const store = t.store.reads as unknown as { getSubtree: (...a: unknown[]) => Promise<unknown> };
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

describe('request logs with publishing on', () => {
  const logged: Record<string, unknown>[] = [];
  let p: TestApp;
  beforeAll(async () => {
    p = await createTestApp({
      logger: pino({ level: 'info' }, new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString('utf8').split('\n')) if (line !== '') logged.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      })),
      definitions: { 'delivery/pages_v1.yaml': 'workspace: website\n$type: jcrDeliveryEndpoint_v2\ndepth: 1\n' },
      content: { 'website.site.yaml': 'site:\n  jcr:primaryType: mgnl:page\n  title: Site\n' },
      contextPath: '/magnoliaPublic',
      // Anonymous callers may preview here, so that the preview request is answered, not refused.
      publishing: { previewContextPath: '/magnoliaAuthor', previewRoles: ['anonymous'] },
    });
  });
  afterAll(async () => {
    await p?.close();
  });

  const lineOf = (id: unknown) => logged.filter((l) => l.reqId === id && l.msg === 'request');

  it('logs a preview request under the preview path, as preview', async () => {
    const res = await p.app.inject({ url: '/magnoliaAuthor/.rest/delivery/pages/v1/site?lang=en' });
    expect(res.statusCode).toBe(200);
    expect(lineOf(res.headers['x-request-id'])).toEqual([
      expect.objectContaining({ url: '/magnoliaAuthor/.rest/delivery/pages/v1/site?lang=en', state: 'preview', status: 200 }),
    ]);
  });

  it('logs a public request under the public path, as live', async () => {
    const res = await p.app.inject({ url: '/magnoliaPublic/.rest/delivery/pages/v1/site' });
    expect(res.statusCode).toBe(404); // never published
    expect(lineOf(res.headers['x-request-id'])).toEqual([
      expect.objectContaining({ url: '/magnoliaPublic/.rest/delivery/pages/v1/site', state: 'live', status: 404 }),
    ]);
  });

  it('names the requested path in a preview 404 for an unknown route', async () => {
    const res = await p.app.inject({ url: '/magnoliaAuthor/nowhere' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe('No route for GET /magnoliaAuthor/nowhere');
  });
});
