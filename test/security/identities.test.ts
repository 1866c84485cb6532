// Tests for Identities: roles through nested groups, disabled and unknown users, authentication that
// costs one scrypt whatever fails, and the role-set key used by caches.
import { beforeAll, describe, expect, it } from 'vitest';
import { Identities, roleSetKey } from '../../src/security/identities.js';
import { hashPassword } from '../../src/security/password-hash.js';
import { loadSecurity } from '../../src/config/security-config.js';

let ids: Identities;

beforeAll(async () => {
  // Default cost (ln=17): the timing assertions compare real users with the dummy hash.
  const [alice, carol] = await Promise.all([hashPassword('alice-password'), hashPassword('carol-password')]);
  ids = new Identities(loadSecurity({
    users: {
      alice: { passwordHash: alice, roles: ['editor', 'rest-anonymous'], groups: ['staff'] },
      carol: { passwordHash: carol, roles: ['editor'], enabled: false },
    },
    groups: {
      staff: { roles: ['rest-anonymous'], groups: ['readers', 'writers'] },
      readers: { roles: ['reader'], groups: ['base'] },
      writers: { roles: ['writer'], groups: ['base'] },
      base: { roles: ['anonymous'] },
    },
    roles: { editor: {}, reader: {}, writer: {} },
  }, '/nonexistent-base'));
});

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

describe('identities', () => {
  it('collects roles through nested groups, deduplicated and sorted', () => {
    expect(ids.roleNamesOf('alice')).toEqual(['anonymous', 'editor', 'reader', 'rest-anonymous', 'writer']);
  });

  it('gives no roles to a disabled or unknown user, but still describes a disabled one', () => {
    expect(ids.roleNamesOf('carol')).toBeUndefined();
    expect(ids.user('carol')?.enabled).toBe(false);
    expect(ids.roleNamesOf('mallory')).toBeUndefined();
    expect(ids.user('mallory')).toBeUndefined();
    expect(ids.roleNamesOf('__proto__')).toBeUndefined();
    expect(ids.roleNamesOf('constructor')).toBeUndefined();
  });

  it('exposes the anonymous roles and role definitions, built-ins included', () => {
    expect(ids.anonymousRoles()).toEqual(['anonymous', 'rest-anonymous']);
    expect(ids.role('rest-anonymous')!.uriPermissions[0]).toEqual({ path: '/.rest/delivery/*', permission: 'get' });
    expect(ids.role('editor')).toBeDefined();
    expect(ids.role('nope')).toBeUndefined();
  });

  it('authenticates the right password of an enabled user', async () => {
    expect(await ids.authenticate('alice', 'alice-password')).toEqual(ids.roleNamesOf('alice'));
  });

  it('refuses unknown users, disabled users and wrong passwords, each after a full scrypt', async () => {
    const attempts: Array<[string, string]> = [
      ['alice', 'wrong-password'], // wrong password
      ['carol', 'carol-password'], // right password, disabled user
      ['mallory', 'anything'], // unknown user
      ['alice', 'x'.repeat(10_000)], // over-long password
    ];
    for (const [user, password] of attempts) {
      const { result, ms } = await timed(() => ids.authenticate(user, password));
      expect(result, `${user}`).toBeUndefined();
      expect(ms, `${user} took ${ms} ms`).toBeGreaterThan(10);
    }
  });

  it('has a stable key per role set', () => {
    expect(roleSetKey(['b', 'a', 'b'])).toBe('a,b');
    expect(roleSetKey(['a', 'b'])).toBe(roleSetKey(['b', 'a']));
    expect(roleSetKey([])).toBe('');
    expect(roleSetKey(ids.anonymousRoles())).toBe('anonymous,rest-anonymous');
  });
});
