// What clients send outside the common request-answer exchange (issue 14, point 8): a client that
// half-closes its side after its request still gets the answer (a 401 for a wrong Basic password
// included, computed after an asynchronous hash); `CONNECT` gets a 405 JSON answer, not silence; an
// unknown `Expect` a 417 JSON answer, not an empty one.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';
import { headerOf, rawRequest } from '../helpers/raw-http.js';
import { basic, hashOf } from '../security-http/helpers.js';

const PW = 'raw-connections-password';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await createTestApp({ security: { ...OPEN_SECURITY, users: { alice: { passwordHash: await hashOf(PW) } } } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await t?.close();
});

describe('a client that half-closes after its request', () => {
  it('gets the 401 of a wrong Basic password', async () => {
    const res = await rawRequest(port, `GET /.auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('alice', 'wrong')}\r\n\r\n`, { halfClose: true, timeoutMs: 30_000 });
    expect(res.status, res.head).toBe(401);
    expect(headerOf(res.head, 'www-authenticate')).toMatch(/^Basic /);
    expect(JSON.parse(res.body).error.code).toBe('notAuthorized');
  });

  it('gets the answer of a right one, and of an anonymous request', async () => {
    const signedIn = await rawRequest(port, `GET /.auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('alice', PW)}\r\n\r\n`, { halfClose: true, timeoutMs: 30_000 });
    expect(signedIn.status, signedIn.head).toBe(200);
    expect(JSON.parse(signedIn.body)).toMatchObject({ user: 'alice' });
    const anonymous = await rawRequest(port, 'GET /.health HTTP/1.1\r\nHost: x\r\n\r\n', { halfClose: true, timeoutMs: 30_000 });
    expect(anonymous.status, anonymous.head).toBe(200);
  });

  it('with a request cut short gets a 400, and one without any request is closed', async () => {
    const cut = await rawRequest(port, 'GET /.health HTTP/1.1\r\nHost: x\r\n', { halfClose: true, timeoutMs: 30_000 });
    expect([0, 400]).toContain(cut.status);
    const nothing = await rawRequest(port, '', { halfClose: true, timeoutMs: 30_000 });
    expect(nothing.status).toBe(0);
    expect(nothing.closedAfterMs).toBeLessThan(20_000); // closed by the server, not by our 30 s limit
  });
});

describe('Expect', () => {
  it('an expectation other than 100-continue is 417 expectationFailed JSON', async () => {
    const res = await rawRequest(port, 'GET /.health HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n\r\n', { timeoutMs: 30_000 });
    expect(res.status, res.head).toBe(417);
    expect(headerOf(res.head, 'x-content-type-options')).toBe('nosniff');
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'expectationFailed' });
    expect(JSON.parse(res.body).error.message).toContain('the-unexpected');
  });

  it('100-continue is honoured', async () => {
    const res = await rawRequest(port, 'GET /.health HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n', { timeoutMs: 30_000 });
    expect(res.status, res.head).toBe(100);
    expect(res.body).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('CONNECT', () => {
  it.each(['example.com:443', '127.0.0.1:22', '/'])('CONNECT %s is 405 methodNotAllowed JSON', async (target) => {
    const res = await rawRequest(port, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`, { timeoutMs: 30_000 });
    expect(res.status, res.head).toBe(405);
    expect(headerOf(res.head, 'content-type')).toMatch(/^application\/json/);
    expect(headerOf(res.head, 'x-content-type-options')).toBe('nosniff');
    expect(headerOf(res.head, 'allow')).toBeDefined();
    expect(JSON.parse(res.body).error.code).toBe('methodNotAllowed');
  });

  it('an Upgrade request (no protocol is offered) is answered as a plain request', async () => {
    const res = await rawRequest(port, 'GET /.health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n', { timeoutMs: 30_000 });
    expect(res.status, res.head).toBe(200);
  });

  it('leaves the server serving', async () => {
    const res = await rawRequest(port, 'GET /.health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
  });
});
