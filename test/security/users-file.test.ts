// Tests for the users file written by `petal user add`: a new file, merging into an existing one
// (other entries and comments kept), updates, mode 0600 and refused names.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/security/password-hash.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { addUser } from '../../src/security/users-file.js';

let tmp: string;
let h1: string;
let h2: string;

beforeAll(async () => {
  [h1, h2] = await Promise.all([hashPassword('first-password', { ln: 10, r: 8, p: 1 }), hashPassword('second-password', { ln: 10, r: 8, p: 1 })]);
});
beforeEach(() => { tmp = mkdtempSync(join(tmpdir(), 'petal-users-file-')); });
afterEach(() => { rmSync(tmp, { recursive: true, force: true }); });

interface UsersShape { users: Record<string, { passwordHash: string; roles: string[]; groups: string[]; enabled: boolean }> }

describe('users file', () => {
  it('creates the file with one user, mode 0600, readable by the security loader', () => {
    const file = join(tmp, 'users.yaml');
    expect(addUser(file, { name: 'alice', passwordHash: h1, roles: ['superuser'] })).toBe('added');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const data = parse(readFileSync(file, 'utf8')) as UsersShape;
    expect(data.users.alice).toEqual({ passwordHash: h1, roles: ['superuser'], groups: [], enabled: true });
    const security = loadSecurity({ folder: tmp }, tmp);
    expect(security.users.get('alice')!.roles).toEqual(['superuser']);
  });

  it('merges into an existing file, keeping other users and comments', () => {
    const file = join(tmp, 'users.yaml');
    writeFileSync(file, `# hand-written header\nusers:\n  # the boss\n  carol: { passwordHash: '${h1}', roles: [editor], enabled: false }\n`);
    addUser(file, { name: 'bob', passwordHash: h2, roles: ['editor'], groups: ['staff'] });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# hand-written header');
    expect(text).toContain('# the boss');
    const data = parse(text) as UsersShape;
    expect(Object.keys(data.users)).toEqual(['carol', 'bob']);
    expect(data.users.carol!.enabled).toBe(false);
    expect(data.users.bob).toEqual({ passwordHash: h2, roles: ['editor'], groups: ['staff'], enabled: true });
  });

  it('updates an existing user: new hash and roles, other keys kept', () => {
    const file = join(tmp, 'users.yaml');
    writeFileSync(file, `users:\n  carol:\n    passwordHash: '${h1}'\n    roles: [editor]\n    groups: [staff]\n    enabled: false # suspended\n`);
    expect(addUser(file, { name: 'carol', passwordHash: h2, roles: ['reader'] })).toBe('updated');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# suspended');
    expect((parse(text) as UsersShape).users.carol).toEqual({ passwordHash: h2, roles: ['reader'], groups: ['staff'], enabled: false });
  });

  it('turns an empty flow mapping into blocks', () => {
    const file = join(tmp, 'users.yaml');
    writeFileSync(file, 'users: {}\n');
    addUser(file, { name: 'dan', passwordHash: h1, roles: ['editor'] });
    expect(readFileSync(file, 'utf8')).toMatch(/^users:\n {2}dan:\n/m);
  });

  it('refuses invalid names and hashes without touching the file', () => {
    const file = join(tmp, 'users.yaml');
    for (const name of ['', 'a b', 'a/b', 'x'.repeat(65), '__proto__', 'é', 'a:b', '-n\n']) {
      expect(() => addUser(file, { name, passwordHash: h1, roles: [] }), name).toThrow(RangeError);
    }
    expect(() => addUser(file, { name: 'ok', passwordHash: 'plain', roles: [] })).toThrow(RangeError);
    expect(() => addUser(file, { name: 'ok', passwordHash: h1, roles: ['bad role'] })).toThrow(RangeError);
    expect(() => statSync(file)).toThrow();
  });
});
