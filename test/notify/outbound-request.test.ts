// Hardening III point 5: every request Petal sends (webhooks, CDN purges) goes through one helper
// (outbound-request.ts), tried here against local servers: an endless body is read up to the cap and
// its stream cancelled (the server sees the connection close), a redirect to another port is not
// followed (that server receives nothing, no token), a silent or trickling server meets the timeout,
// and only http(s) URLs are sent to.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, relative } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES, OutboundError, sendOutbound } from '../../src/notify/outbound-request.js';
import { postPurge, PurgeCallError } from '../../src/notify/purge-target.js';
import { fastlySender } from '../../src/notify/purge-fastly.js';
import { cloudflareSender } from '../../src/notify/purge-cloudflare.js';
import { httpSender } from '../../src/notify/purge-http.js';
import { postWebhook } from '../../src/notify/post-webhook.js';
import { compileFilter } from '../../src/notify/webhook-events.js';

interface Local { readonly url: string; readonly requests: IncomingMessage[]; readonly server: Server }
const servers: Server[] = [];

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Local> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => { requests.push(req); handler(req, res); });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()); });
});

/** A 200 whose body never ends (16 KiB chunks as fast as the client reads); `closed` resolves once the client hangs up. */
async function endless(): Promise<Local & { closed: Promise<number> }> {
  let hungUp: (written: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => { hungUp = resolve; });
  const chunk = Buffer.alloc(16 * 1024, 'x');
  const local = await serve((_req, res) => {
    let written = 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.on('close', () => hungUp(written));
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) written += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
  return { ...local, closed };
}

const never = new AbortController().signal;
const hook = (url: string, timeoutMs = 5_000) => ({ filter: compileFilter({ name: 'h', url, secretEnv: 'X' } as never), url, secret: 's3cret', timeoutMs });

describe('the body cap', () => {
  it('an endless body: at most maxResponseBytes are read, then the stream is cancelled (the connection closes)', async () => {
    const target = await endless();
    const res = await sendOutbound({ url: target.url, method: 'POST', headers: {}, body: '{}', timeoutMs: 30_000, maxResponseBytes: 100_000 });
    expect([res.status, res.bytesRead, res.truncated, res.text.length]).toEqual([200, 100_000, true, 100_000]);
    await target.closed; // resolves only when the client hung up
  });

  it('a purge target streaming without end: postPurge returns the first 64 KiB and hangs up', async () => {
    const target = await endless();
    const text = await postPurge(`${target.url}/purge`, { headers: { 'fastly-key': 'k' } }, never);
    expect(text.length).toBe(MAX_RESPONSE_BYTES);
    await target.closed;
  });

  it('a body within the cap is read whole; maxResponseBytes 0 reads none', async () => {
    const target = await serve((_req, res) => res.end('{"success":true}'));
    const whole = await sendOutbound({ url: target.url, method: 'POST', headers: {}, timeoutMs: 5_000, maxResponseBytes: 1_000 });
    expect([whole.text, whole.truncated]).toEqual(['{"success":true}', false]);
    const none = await sendOutbound({ url: target.url, method: 'POST', headers: {}, timeoutMs: 5_000, maxResponseBytes: 0 });
    expect([none.status, none.text, none.bytesRead]).toEqual([200, '', 0]);
  });
});

describe('redirects are never followed', () => {
  async function redirecting(status: number): Promise<{ from: Local; to: Local }> {
    const to = await serve((_req, res) => res.end('{"success":true}'));
    const from = await serve((_req, res) => res.writeHead(status, { location: `${to.url}/stolen` }).end());
    return { from, to };
  }

  it.each([301, 302, 303, 307, 308])('%i: answered as it came, the other port receives nothing', async (status) => {
    const { from, to } = await redirecting(status);
    const res = await sendOutbound({ url: from.url, method: 'POST', headers: { authorization: 'Bearer t' }, body: '{}', timeoutMs: 5_000, maxResponseBytes: 1_000 });
    expect([res.status, res.redirect, res.headers.get('location')]).toEqual([status, true, `${to.url}/stolen`]);
    expect(from.requests).toHaveLength(1);
    expect(to.requests).toHaveLength(0);
  });

  it('Fastly, Cloudflare and http purges: a redirect is a failure not retried, and no token reaches the other host', async () => {
    const { from, to } = await redirecting(307);
    const batch = { keys: ['k1'], sequence: 1, at: new Date().toISOString() };
    for (const sender of [
      fastlySender({ serviceId: 'SVC', token: 'fastly-token', baseUrl: from.url }),
      cloudflareSender({ zoneId: 'ZONE', token: 'cf-token', baseUrl: from.url }),
      httpSender({ url: `${from.url}/revalidate`, secret: 'hook-secret' }),
    ]) {
      const err = await sender.send(batch, never).then(() => undefined, (e: unknown) => e);
      expect(err, sender.name).toBeInstanceOf(PurgeCallError);
      expect((err as PurgeCallError).retriable).toBe(false);
      expect((err as PurgeCallError).message).toContain('307 (a redirect: not followed)');
    }
    expect(from.requests.map((r) => [r.headers['fastly-key'], r.headers.authorization])).toEqual([['fastly-token', undefined], [undefined, 'Bearer cf-token'], [undefined, undefined]]);
    expect(to.requests).toHaveLength(0);
  });

  it('a webhook: a failed attempt, the other host receives nothing', async () => {
    const { from, to } = await redirecting(302);
    expect(await postWebhook(hook(from.url), 'h-1', '{}')).toEqual({ ok: false, error: 'HTTP 302 (a redirect: not followed)' });
    expect(from.requests).toHaveLength(1);
    expect(to.requests).toHaveLength(0);
  });
});

describe('timeouts and what is sent to', () => {
  it('a server that never answers: a timeout', async () => {
    const silent = await serve(() => undefined);
    const err = await sendOutbound({ url: silent.url, method: 'POST', headers: {}, timeoutMs: 100, maxResponseBytes: 1_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect([(err as OutboundError).reason, (err as OutboundError).message]).toEqual(['timeout', 'no answer within 100 ms']);
    expect(await postWebhook(hook(silent.url, 100), 'h-2', '{}')).toEqual({ ok: false, error: 'no answer within 100 ms' });
  });

  it('a body that trickles: the timeout covers reading it too', async () => {
    const trickle = await serve((_req, res) => { res.writeHead(200); res.write('{"a":'); });
    const err = await sendOutbound({ url: trickle.url, method: 'POST', headers: {}, timeoutMs: 200, maxResponseBytes: 1_000 }).catch((e: unknown) => e);
    expect((err as OutboundError).reason).toBe('timeout');
  });

  it('the caller\'s signal aborts; only http and https URLs are sent to', async () => {
    const silent = await serve(() => undefined);
    const stop = new AbortController();
    const pending = sendOutbound({ url: silent.url, method: 'POST', headers: {}, timeoutMs: 30_000, maxResponseBytes: 1_000, signal: stop.signal }).catch((e: unknown) => e);
    while (silent.requests.length === 0) await new Promise((r) => setImmediate(r));
    stop.abort();
    expect(((await pending) as OutboundError).reason).toBe('aborted');
    for (const url of ['file:///etc/passwd', 'data:text/plain,x', 'nonsense']) {
      const err = await sendOutbound({ url, method: 'GET', headers: {}, timeoutMs: 1_000, maxResponseBytes: 1_000 }).catch((e: unknown) => e);
      expect((err as OutboundError).reason, url).toBe('invalidUrl');
    }
  });
});

describe('one helper for every request', () => {
  it('no other source file sends HTTP itself (fetch, node:http(s) requests, undici)', () => {
    const src = join(import.meta.dirname, '../../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => join(src, f));
    const SENDS = /\b(?:http|https)\.(?:request|get)\(|from 'node:https?'.*\b(?:request|get)\b|from 'undici'|require\('undici'\)/;
    const sends = (text: string): boolean => {
      const code = text.split('\n').filter((line) => !/^\s*(?:\/\/|\*)/.test(line)).join('\n');
      // The global fetch, not a local function of that name (cursor-reads.ts has one).
      return SENDS.test(code) || (/\bfetch\(/.test(code) && !/\b(?:const|let|function)\s+fetch\b/.test(code));
    };
    const senders = files.filter((f) => sends(readFileSync(f, 'utf8')));
    expect(senders.map((f) => relative(src, f))).toEqual(['notify/outbound-request.ts']);
  });
});
