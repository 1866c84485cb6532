// Shared pieces of the HTTP security suite (issue 4): password hashes computed once per test file,
// request helpers over app.inject, and the assertions every error body must pass.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { hashPassword } from '../../src/security/password-hash.js';

/**
 * One hash per password, shared by every user of a test file. At N=2^14 rather than the default 2^17:
 * a sign-in verifies at the hash's own cost, and these suites sign in hundreds of times. The users of
 * these suites live in the config, which is never rewritten (session-end.test.ts tests the upgrade).
 */
const TEST_SCRYPT = { ln: 14, r: 8, p: 1 } as const;
const hashes = new Map<string, Promise<string>>();
export function hashOf(password: string): Promise<string> {
  let h = hashes.get(password);
  if (h === undefined) {
    h = hashPassword(password, TEST_SCRYPT);
    hashes.set(password, h);
  }
  return h;
}

export function tempFolder(prefix = 'petal-sec-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

export interface Res {
  readonly status: number;
  readonly headers: LightMyRequestResponse['headers'];
  readonly raw: string;
  readonly body: any;
  readonly cookies: LightMyRequestResponse['cookies'];
}

function wrap(res: LightMyRequestResponse): Res {
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, headers: res.headers, raw: res.body, body, cookies: res.cookies };
}

export async function req(app: FastifyInstance, o: InjectOptions): Promise<Res> {
  return wrap(await app.inject(o));
}

export function get(app: FastifyInstance, url: string, headers: Record<string, string> = {}, remoteAddress?: string): Promise<Res> {
  return req(app, { method: 'GET', url, headers, ...(remoteAddress !== undefined ? { remoteAddress } : {}) });
}

/** `petal_session=<id>` as a Cookie header. */
export function sessionCookie(id: string): Record<string, string> {
  return { cookie: `petal_session=${id}` };
}

/** POST /.auth/login with the form fields the original CMS's login form posts. */
export function loginForm(app: FastifyInstance, user: string, password: string, extra: { headers?: Record<string, string>; remoteAddress?: string } = {}): Promise<Res> {
  const payload = new URLSearchParams({ mgnlUserId: user, mgnlUserPSWD: password }).toString();
  return req(app, {
    method: 'POST', url: '/.auth/login', payload,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(extra.headers ?? {}) },
    ...(extra.remoteAddress !== undefined ? { remoteAddress: extra.remoteAddress } : {}),
  });
}

/** The session id a response sets, or undefined. */
export function sessionIdOf(res: Res): string | undefined {
  const c = res.cookies.find((x) => x.name === 'petal_session');
  return c && c.value !== '' ? c.value : undefined;
}

/** Logs in through the form and returns the new session id (fails the test otherwise). */
export async function login(app: FastifyInstance, user: string, password: string, remoteAddress?: string): Promise<string> {
  const res = await loginForm(app, user, password, remoteAddress !== undefined ? { remoteAddress } : {});
  expect(res.status, `login ${user}: ${res.raw}`).toBe(200);
  const id = sessionIdOf(res);
  expect(id, `login ${user} set no session cookie`).toBeDefined();
  return id!;
}

/**
 * Every error answer is exactly `{"error":{"code","message"}}` in JSON, with the expected status and
 * code, and nothing that looks like internals (stack frames, file paths, SQL).
 */
export function expectErrorShape(res: Res, status: number, code: string, label = ''): void {
  expect(res.status, `${label} ${res.raw}`).toBe(status);
  expect(String(res.headers['content-type']), label).toMatch(/^application\/json/);
  expect(res.body, `${label} ${res.raw}`).toEqual({ error: { code, message: expect.any(String) } });
  expect(Object.keys(res.body), label).toEqual(['error']);
  expect(Object.keys(res.body.error), label).toEqual(['code', 'message']);
  expectNoInternals(res.raw, label);
}

export function expectNoInternals(raw: string, label = ''): void {
  expect(raw, label).not.toMatch(/\bat .+:\d+:\d+|\.ts:\d+|\.js:\d+|node_modules|\/work\/|SQLITE|SELECT |stack/i);
}

/** Response headers that legitimately differ between two otherwise identical answers. */
const VOLATILE_HEADERS = new Set(['date', 'x-request-id']);

/** Header names and values, minus the volatile ones (to compare "hidden" with "missing"). */
export function stableHeaders(res: Res): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(res.headers)) if (!VOLATILE_HEADERS.has(k)) out[k] = v;
  return out;
}

/** A multipart/form-data body, one part per file (field name `file`, as curl -F file=@… sends it). */
export function multipart(files: readonly (readonly [string, string])[], fields: Record<string, string> = {}): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----petal${Math.random().toString(16).slice(2)}`;
  const chunks: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }
  for (const [name, text] of files) {
    chunks.push(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n${text}\r\n`);
  }
  chunks.push(`--${boundary}--\r\n`);
  return { payload: Buffer.from(chunks.join(''), 'utf8'), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
