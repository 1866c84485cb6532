// Issue 28 point 12 through HTTP: two running servers share one security folder (instances behind a
// load balancer) and reload it on change. A new password, set with `petal user passwd`, `petal user
// add` or by editing users.yaml by hand, ends the user's API tokens and sessions on both; so do
// disabling and removing a user (a user re-added under the same name does not inherit old tokens),
// while a hash upgraded by another instance (same password) ends nothing. The CLI runs in-process.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { createToken, readTokens, writeTokens } from '../../src/security/api-tokens.js';
import { hashPassword, passwordIdOf, rehashPassword } from '../../src/security/password-hash.js';
import { addUser, replacePasswordHash } from '../../src/security/users-file.js';

const PW = 'first-password-1';
const PW2 = 'second-password-2';
const PW3 = 'third-password-3';

let root: string;
let shared: string;
let usersFile: string;
let tokensFile: string;
let cfg: string;
let servers: RunningServer[] = [];
let hash1: string;
let hash2: string;

/** Runs `petal …` in this process with `input` as standard input; returns exit code and output. */
async function petal(args: readonly string[], input = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process, 'stdin', 'get').mockReturnValue(Readable.from([Buffer.from(input)]) as unknown as typeof process.stdin);
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { out += String(chunk); return true; });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { err += String(chunk); return true; });
  try {
    return { code: await main([...args, '--config', cfg]), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: not reached`);
}

interface Me { readonly user: string | null; readonly roles: string[]; readonly via: string }
async function me(server: RunningServer, headers: Record<string, string>): Promise<Me & { status: number }> {
  const res = await fetch(`${server.url}/.auth/me`, { headers });
  return { status: res.status, ...(res.status === 200 ? await res.json() as Me : { user: null, roles: [], via: 'refused' }) };
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookie = (id: string) => ({ cookie: `petal_session=${id}` });

async function login(server: RunningServer, user: string, password: string): Promise<string> {
  const res = await fetch(`${server.url}/.auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ mgnlUserId: user, mgnlUserPSWD: password }).toString(),
  });
  expect(res.status, `login ${user}`).toBe(200);
  const id = /petal_session=([^;]+)/.exec(res.headers.getSetCookie().join('\n'))?.[1];
  expect(id).toBeDefined();
  return id!;
}

/** Where `headers` gets on each server: 'token', 'session', 'anonymous' or 'refused' (401). */
async function viaOnEach(headers: Record<string, string>): Promise<string[]> {
  return Promise.all(servers.map(async (s) => (await me(s, headers)).via));
}

let probes = 0;
/**
 * Waits until every server has reloaded the security folder as it is now: a probe token written
 * after the change works only once a reload has read the files, the change included.
 */
async function reloaded(): Promise<void> {
  const { token, record } = createToken({ user: 'probe', name: `probe-${++probes}`, passwordId: passwordIdOf(hash1)! });
  writeTokens(tokensFile, [...readTokens(tokensFile), record]);
  for (const [i, s] of servers.entries()) await until(async () => (await me(s, bearer(token))).via === 'token', `server ${i} reloaded`);
}

/** Edits users.yaml as an operator would in an editor (no CLI, not atomic). */
function editUsers(change: (doc: ReturnType<typeof parseDocument>) => void): void {
  const doc = parseDocument(readFileSync(usersFile, 'utf8'));
  change(doc);
  writeFileSync(usersFile, doc.toString());
}

async function createTokenCli(name: string, user: string): Promise<string> {
  const r = await petal(['token', 'create', name, '--user', user]);
  expect(r.code, r.err).toBe(0);
  return r.out.trim();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'petal-pwchange-'));
  shared = join(root, 'security');
  mkdirSync(shared, { mode: 0o700 });
  usersFile = join(shared, 'users.yaml');
  tokensFile = join(shared, 'tokens.yaml');
  writeFileSync(join(shared, 'roles.yaml'), 'roles:\n  reader: { uriPermissions: [{ path: /.rest/private/*, permission: get }] }\n  other: {}\n');
  // Default-cost hashes: a login does not rewrite them, so users.yaml changes only when a test says so.
  [hash1, hash2] = await Promise.all([hashPassword(PW), hashPassword(PW2)]);
  for (const name of ['alice', 'bob', 'carol', 'dave', 'probe']) addUser(usersFile, { name, passwordHash: hash1, roles: ['reader'] });
  for (const instance of ['a', 'b']) {
    const dir = join(root, instance);
    mkdirSync(dir);
    const file = join(dir, 'petal.yaml');
    writeFileSync(file, `store: sqlite:./petal.db\nport: 0\nhost: 127.0.0.1\nlogLevel: silent\nsecurity:\n  folder: ${shared}\n`);
    if (instance === 'a') cfg = file;
    servers.push(await startServer(loadConfig({ config: file }), pino({ level: 'silent' })));
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  if (root) rmSync(root, { recursive: true, force: true });
});

// Each test signs in and hashes at the default scrypt cost several times: on a busy machine, seconds each.
const SLOW = { timeout: 120_000 };

describe('a new password ends API tokens and sessions on every instance', SLOW, () => {
  it('a password edited by hand in users.yaml ends the tokens and sessions opened with the old one', async () => {
    const token = await createTokenCli('alice-ci', 'alice');
    expect(readTokens(tokensFile).find((r) => r.name === 'alice-ci')?.passwordId).toBe(passwordIdOf(hash1));
    const bobToken = await createTokenCli('bob-ci', 'bob');
    await reloaded();
    const sessions = await Promise.all(servers.map((s) => login(s, 'alice', PW)));
    const bobSession = await login(servers[0]!, 'bob', PW);
    expect(await viaOnEach(bearer(token))).toEqual(['token', 'token']);
    expect(await Promise.all(servers.map(async (s, i) => (await me(s, cookie(sessions[i]!))).via))).toEqual(['session', 'session']);

    editUsers((doc) => doc.setIn(['users', 'alice', 'passwordHash'], hash2));
    await reloaded();
    expect(await viaOnEach(bearer(token))).toEqual(['refused', 'refused']);
    expect(await Promise.all(servers.map(async (s, i) => (await me(s, cookie(sessions[i]!))).via))).toEqual(['anonymous', 'anonymous']);
    expect(readTokens(tokensFile).some((r) => r.name === 'alice-ci')).toBe(true); // refused, not deleted
    // Other users keep theirs; the new password signs in, and a token made now works.
    expect(await viaOnEach(bearer(bobToken))).toEqual(['token', 'token']);
    expect((await me(servers[0]!, cookie(bobSession))).via).toBe('session');
    expect((await me(servers[1]!, cookie(await login(servers[1]!, 'alice', PW2)))).via).toBe('session');
    const fresh = await createTokenCli('alice-ci2', 'alice');
    await reloaded();
    expect(await viaOnEach(bearer(fresh))).toEqual(['token', 'token']);

    const list = await petal(['token', 'list', '--user', 'alice']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^NAME\s+USER\s+CREATED\s+EXPIRES\s+STATE$/m);
    expect(list.out).toMatch(/^alice-ci\s+alice\s+\S+\s+never\s+ended: the user has a new password$/m);
    expect(list.out).toMatch(/^alice-ci2\s+alice\s+\S+\s+never\s+active$/m);
    expect(list.out).not.toContain('bob-ci');
  });

  it('petal user passwd ends sessions and tokens (deleting them); user add with the current password keeps them', async () => {
    const token = await createTokenCli('alice-ci3', 'alice');
    await reloaded();
    const session = await login(servers[0]!, 'alice', PW2);

    // Re-running user add to give a role, with the same password: nothing ends.
    const same = await petal(['user', 'add', 'alice', '--role', 'reader', '--role', 'other', '--password-stdin'], PW2);
    expect(same.code, same.err).toBe(0);
    expect(same.out).toMatch(/updated user alice .*; password unchanged/);
    await reloaded();
    expect(await viaOnEach(bearer(token))).toEqual(['token', 'token']);
    expect(await me(servers[0]!, cookie(session))).toMatchObject({ via: 'session', roles: expect.arrayContaining(['other', 'reader']) });

    const changed = await petal(['user', 'passwd', 'alice', '--password-stdin'], `${PW3}\n`);
    expect(changed.code, changed.err).toBe(0);
    expect(changed.out).toBe(`new password for user alice in ${usersFile}: ended their sessions and revoked 3 API tokens\n`);
    expect(readTokens(tokensFile).filter((r) => r.user === 'alice')).toEqual([]);
    await reloaded();
    expect(await viaOnEach(bearer(token))).toEqual(['refused', 'refused']);
    expect((await me(servers[0]!, cookie(session))).via).toBe('anonymous');
    const after = await me(servers[1]!, cookie(await login(servers[1]!, 'alice', PW3)));
    expect(after).toMatchObject({ via: 'session', roles: expect.arrayContaining(['other', 'reader']) }); // roles kept

    const again = await petal(['user', 'passwd', 'alice', '--password-stdin'], PW3);
    expect(again).toMatchObject({ code: 1, err: 'petal: that is the current password of alice: choose a new one\n' });
    expect((await petal(['user', 'passwd', 'nobody', '--password-stdin'], PW3)).err).toMatch(/user nobody is not defined/);
  });

  it('petal token revoke NAME revokes one token, --user every token of the user, saying how many', async () => {
    const one = await createTokenCli('bob-1', 'bob');
    const two = await createTokenCli('bob-2', 'bob');
    expect(readTokens(tokensFile).some((r) => r.name === 'bob-ci')).toBe(true); // from the first test
    await reloaded();
    expect(await viaOnEach(bearer(two))).toEqual(['token', 'token']);

    expect(await petal(['token', 'revoke', 'bob-1'])).toMatchObject({ code: 0, out: `revoked token bob-1 of user bob in ${tokensFile}\n` });
    expect(await petal(['token', 'revoke', '--user', 'bob'])).toMatchObject({ code: 0, out: `revoked 2 API tokens of user bob in ${tokensFile}\n` });
    expect(await petal(['token', 'revoke', '--user', 'bob'])).toMatchObject({ code: 0, out: `revoked 0 API tokens of user bob in ${tokensFile}\n` });
    await reloaded();
    expect(await viaOnEach(bearer(one))).toEqual(['refused', 'refused']);
    expect(await viaOnEach(bearer(two))).toEqual(['refused', 'refused']);

    expect(await petal(['token', 'revoke', 'bob-1'])).toMatchObject({ code: 1, err: expect.stringMatching(/no token named bob-1/) });
    expect((await petal(['token', 'revoke'])).code).toBe(2);
    expect((await petal(['token', 'revoke', 'x', '--user', 'bob'])).code).toBe(2);
    expect((await petal(['token', 'list', '--user', 'bob'])).out).toBe(`no tokens of user bob in ${tokensFile}\n`);
  });
});

describe('disabling, removing, re-adding and taking a role away, at the next reload of every instance', SLOW, () => {
  it('acts on tokens and sessions alike; a user re-added under the same name does not inherit old tokens', async () => {
    const token = await createTokenCli('carol-ci', 'carol');
    await reloaded();
    const sessions = await Promise.all(servers.map((s) => login(s, 'carol', PW)));
    const sessionVia = () => Promise.all(servers.map(async (s, i) => (await me(s, cookie(sessions[i]!))).via));

    editUsers((doc) => doc.setIn(['users', 'carol', 'roles'], doc.createNode([], { flow: true })));
    await reloaded();
    for (const s of servers) expect((await me(s, bearer(token))).roles).not.toContain('reader');
    for (const [i, s] of servers.entries()) expect((await me(s, cookie(sessions[i]!))).roles).not.toContain('reader');
    editUsers((doc) => doc.setIn(['users', 'carol', 'roles'], doc.createNode(['reader'], { flow: true })));

    editUsers((doc) => doc.setIn(['users', 'carol', 'enabled'], false));
    await reloaded();
    expect(await viaOnEach(bearer(token))).toEqual(['refused', 'refused']);
    expect(await sessionVia()).toEqual(['anonymous', 'anonymous']);
    editUsers((doc) => doc.setIn(['users', 'carol', 'enabled'], true));
    await reloaded();
    expect(await viaOnEach(bearer(token))).toEqual(['token', 'token']); // blocked while disabled only
    expect(await sessionVia()).toEqual(['anonymous', 'anonymous']); // sessions stay ended

    editUsers((doc) => doc.deleteIn(['users', 'carol']));
    await reloaded();
    expect(await viaOnEach(bearer(token))).toEqual(['refused', 'refused']);
    // Another carol, with her own password: the old carol's token (still in tokens.yaml) is not hers.
    addUser(usersFile, { name: 'carol', passwordHash: hash2, roles: ['reader'] });
    await reloaded();
    expect(await viaOnEach(bearer(token))).toEqual(['refused', 'refused']);

    const removed = await petal(['user', 'remove', 'carol']);
    expect(removed).toMatchObject({ code: 0, out: `removed user carol in ${usersFile} (revoked 1 API token)\n` });
    expect(readTokens(tokensFile).some((r) => r.user === 'carol')).toBe(false);
  });

  it('a hash upgraded by another instance (same password and salt, other parameters) ends nothing', async () => {
    const token = await createTokenCli('dave-ci', 'dave');
    await reloaded();
    const sessions = await Promise.all(servers.map((s) => login(s, 'dave', PW)));
    // What an instance with stronger scrypt settings writes after dave's next login there.
    const upgraded = await rehashPassword(PW, hash1, { ln: 17, r: 8, p: 2 });
    expect(replacePasswordHash(usersFile, 'dave', hash1, upgraded)).toBe(true);
    await reloaded();
    expect(await viaOnEach(bearer(token))).toEqual(['token', 'token']);
    expect(await Promise.all(servers.map(async (s, i) => (await me(s, cookie(sessions[i]!))).via))).toEqual(['session', 'session']);
  });
});
