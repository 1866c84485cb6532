// Issue 13, points 9 and 10 through HTTP: a user's sessions end when the password changes, when the
// user is disabled or removed (a session unused while disabled stays dead after re-enabling), and on
// `petal user logout` (logouts.yaml); a hash with older scrypt parameters is upgraded on the next
// successful login, in its file, without ending sessions. Issue 28 point 12: sessions, Basic and
// tokens are bound to the password they were checked against (passwordIdOf), even across a reload
// that lands while the password is being checked.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordLogout } from '../../src/security/logouts-file.js';
import { ConfigError } from '../../src/config/config-error.js';
import { createToken, writeTokens } from '../../src/security/api-tokens.js';
import { parsePasswordHash } from '../../src/config/password-hash-format.js';
import { hashPassword, passwordIdOf, verifyPassword } from '../../src/security/password-hash.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { SecurityService } from '../../src/security/security-service.js';
import { addUser, setUserEnabled, removeUser } from '../../src/security/users-file.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { get, login, loginForm, sessionCookie, tempFolder } from './helpers.js';

const PW = 'correct horse battery staple';
const PW2 = 'a completely new passphrase';
// A cheap hash is below the default parameters, so a login upgrades it: tests of sessions use
// default-cost hashes (computed once), tests of the upgrade the cheap or the N=2^15 ones.
const CHEAP = { ln: 10, r: 8, p: 1 } as const;

let strong: string;
let strong2: string;
beforeAll(async () => {
  [strong, strong2] = await Promise.all([hashPassword(PW), hashPassword(PW2)]);
});

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** An app whose users live in `<folder>/users.yaml`; `reload()` re-reads the folder as the watcher does. */
async function appWithFolder(users: Record<string, string>) {
  const folder = tempFolder();
  for (const [name, hash] of Object.entries(users)) addUser(join(folder, 'users.yaml'), { name, passwordHash: hash, roles: [] });
  t = await createTestApp({ security: { folder } });
  const app = t;
  return {
    app: app.app,
    folder,
    usersFile: join(folder, 'users.yaml'),
    reload: () => app.security.reload(loadSecurity({ folder }, app.dir)),
  };
}

const who = async (a: TestApp['app'], id: string) => (await get(a, '/.auth/me', sessionCookie(id))).body.via as string;

describe('sessions end with the credentials they were opened with', () => {
  it('a new password ends the sessions; the new password opens a new one', async () => {
    const e = await appWithFolder({ alice: strong, bob: strong });
    const alice = await login(e.app, 'alice', PW);
    const bob = await login(e.app, 'bob', PW);
    addUser(e.usersFile, { name: 'alice', passwordHash: strong2, roles: [] });
    e.reload();
    expect(await who(e.app, alice)).toBe('anonymous');
    expect(await who(e.app, bob)).toBe('session'); // other users keep theirs
    expect((await loginForm(e.app, 'alice', PW)).status).toBe(401);
    expect(await who(e.app, await login(e.app, 'alice', PW2))).toBe('session');
  });

  it('a session unused while its user was disabled does not come back with re-enabling', async () => {
    const e = await appWithFolder({ alice: strong });
    const id = await login(e.app, 'alice', PW);
    setUserEnabled(e.usersFile, 'alice', false);
    e.reload();
    setUserEnabled(e.usersFile, 'alice', true);
    e.reload();
    expect(await who(e.app, id)).toBe('anonymous');
    expect(await who(e.app, await login(e.app, 'alice', PW))).toBe('session');
  });

  it('removing the user ends the sessions, also when the same name is added again', async () => {
    const e = await appWithFolder({ alice: strong });
    const id = await login(e.app, 'alice', PW);
    removeUser(e.usersFile, 'alice');
    e.reload();
    addUser(e.usersFile, { name: 'alice', passwordHash: strong, roles: [] });
    e.reload();
    expect(await who(e.app, id)).toBe('anonymous');
  });

  it('a logout recorded in logouts.yaml (petal user logout) ends the sessions opened before it only', async () => {
    const e = await appWithFolder({ alice: strong, bob: strong });
    const before = await login(e.app, 'alice', PW);
    const bob = await login(e.app, 'bob', PW);
    recordLogout(join(e.folder, 'logouts.yaml'), 'alice', new Date(Date.now() + 1));
    await new Promise((r) => setTimeout(r, 5));
    e.reload();
    expect(await who(e.app, before)).toBe('anonymous');
    expect(await who(e.app, bob)).toBe('session');
    expect(await who(e.app, await login(e.app, 'alice', PW))).toBe('session');
  });
});

describe('password hashes with older parameters are upgraded on login', () => {
  it('a user with an N=2^15 hash signs in, the file then holds N=2^17, and the password still works', async () => {
    const original = await hashPassword(PW, { ln: 15, r: 8, p: 1 });
    const e = await appWithFolder({ alice: original });
    const id = await login(e.app, 'alice', PW);
    const stored = (parse(readFileSync(e.usersFile, 'utf8')) as { users: { alice: { passwordHash: string } } }).users.alice.passwordHash;
    expect(parsePasswordHash(stored)?.params).toEqual({ ln: 17, r: 8, p: 1 });
    // The salt is kept: other instances that reload the file see the same password, not a new one.
    expect(passwordIdOf(stored)).toBe(passwordIdOf(original));
    expect(await verifyPassword(PW, stored)).toBe(true);
    e.reload(); // what the folder watcher does next: our own upgrade does not end the session
    expect(await who(e.app, id)).toBe('session');
    expect(await who(e.app, await login(e.app, 'alice', PW))).toBe('session');
    expect(readFileSync(e.usersFile, 'utf8')).toContain(stored); // no second rewrite
  });

  it('a wrong password never rewrites; a user of petal.yaml is not rewritten but warned about once', async () => {
    const old = await hashPassword(PW, CHEAP);
    const warnings: string[] = [];
    const folder = tempFolder();
    const service = new SecurityService(loadSecurity({ folder, users: { carol: { passwordHash: old } } }, folder), { warn: (m) => warnings.push(m) });
    expect((await service.checkPassword('carol', 'wrong', '10.0.0.1')).ok).toBe(false);
    expect(warnings).toEqual([]);
    expect((await service.checkPassword('carol', PW, '10.0.0.1')).ok).toBe(true);
    expect((await service.checkPassword('carol', PW, '10.0.0.1')).ok).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/carol.*weaker scrypt parameters/);
  });

  it('does not overwrite a password changed while the login was being checked', async () => {
    const e = await appWithFolder({ alice: await hashPassword(PW, CHEAP) });
    // The file changes under the running server (a new password set by hand); the server still holds the old hash.
    const text = readFileSync(e.usersFile, 'utf8');
    writeFileSync(e.usersFile, text.replace(/passwordHash: .*/, `passwordHash: ${strong2}`));
    expect((await loginForm(e.app, 'alice', PW)).status).toBe(200);
    expect(readFileSync(e.usersFile, 'utf8')).toContain(strong2);
  });
});

describe('a password changed while a login is being checked', () => {
  it('the session then opened, and the Basic credentials then checked, do not outlive the change', async () => {
    const folder = tempFolder();
    const usersFile = join(folder, 'users.yaml');
    addUser(usersFile, { name: 'alice', passwordHash: strong, roles: [] });
    const service = new SecurityService(loadSecurity({ folder }, folder));
    // Both checks take the users as they are now, then hash for a while; the reload lands meanwhile.
    const checking = service.checkPassword('alice', PW, '10.0.0.1');
    const basic = service.identify({ authorization: `Basic ${Buffer.from(`alice:${PW}`).toString('base64')}`, client: '10.0.0.2' });
    addUser(usersFile, { name: 'alice', passwordHash: strong2, roles: [] });
    service.reload(loadSecurity({ folder }, folder));
    const checked = await checking;
    if (!checked.ok) throw new Error('the password was right when it was checked');
    const session = service.sessions.create('alice', checked.passwordId); // what POST /.auth/login does next
    const viaSession = await service.identify({ sessionId: session.id, client: '10.0.0.1' });
    expect(viaSession.ok && viaSession.caller.via).toBe('anonymous');
    expect(service.sessions.size).toBe(0);
    expect((await basic).ok).toBe(false);
    const fresh = await service.checkPassword('alice', PW2, '10.0.0.3');
    if (!fresh.ok) throw new Error('the new password is refused');
    const viaFresh = await service.identify({ sessionId: service.sessions.create('alice', fresh.passwordId).id, client: '10.0.0.3' });
    expect(viaFresh.ok && viaFresh.caller.via).toBe('session');
  });
});

describe('API tokens of older versions (not bound to a password)', () => {
  it('still work, and the server warns once that a password edited by hand does not end them', async () => {
    const folder = tempFolder();
    addUser(join(folder, 'users.yaml'), { name: 'alice', passwordHash: strong, roles: [] });
    const made = createToken({ user: 'alice', name: 'old-ci', passwordId: passwordIdOf(strong)! });
    const { passwordId: _, ...legacy } = made.record;
    writeTokens(join(folder, 'tokens.yaml'), [legacy]);
    const warnings: string[] = [];
    const service = new SecurityService(loadSecurity({ folder }, folder), { warn: (m) => warnings.push(m) });
    const who = await service.identify({ authorization: `Bearer ${made.token}`, client: '10.0.0.1' });
    expect(who.ok && who.caller.via).toBe('token');
    service.reload(loadSecurity({ folder }, folder));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/token old-ci \(user alice\) was created before tokens were bound .*petal token revoke old-ci/);
  });
});

describe('a reload that fails', () => {
  it('leaves the previous configuration whole (a broken tokens.yaml next to a changed users.yaml)', async () => {
    const folder = tempFolder();
    const usersFile = join(folder, 'users.yaml');
    addUser(usersFile, { name: 'alice', passwordHash: strong, roles: [] });
    const made = createToken({ user: 'alice', name: 'ci', passwordId: passwordIdOf(strong)! });
    writeTokens(join(folder, 'tokens.yaml'), [made.record]);
    const config = (users: Record<string, unknown>) => loadSecurity({ folder, roles: { reader: {} }, users }, folder);
    const service = new SecurityService(config({}));
    const bearer = { authorization: `Bearer ${made.token}`, client: '10.0.0.1' };
    const before = await service.identify(bearer);
    expect(before.ok && before.caller.roles).not.toContain('reader');
    // alice moves to petal.yaml with a new role and a new password, while tokens.yaml is broken.
    removeUser(usersFile, 'alice');
    writeFileSync(join(folder, 'tokens.yaml'), 'tokens: [ broken\n');
    expect(() => service.reload(config({ alice: { passwordHash: strong2, roles: ['reader'] } }))).toThrow(ConfigError);
    const after = await service.identify(bearer);
    expect(after.ok && after.caller.roles).toEqual(before.ok && before.caller.roles);
  });
});
