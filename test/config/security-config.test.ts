// Tests for the `security:` section and the security folder: defaults, built-in roles and their
// override, merging folder files, and the errors (duplicates, dangling references, cycles, bad values).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { hashPassword } from '../../src/security/password-hash.js';
import { BUILT_IN } from '../../src/config/built-in-roles.js';
import { loadSecurity } from '../../src/config/security-config.js';

let tmp: string;
let hash: string;

beforeAll(async () => { hash = await hashPassword('password-1', { ln: 10, r: 8, p: 1 }); });
beforeEach(() => { tmp = mkdtempSync(join(tmpdir(), 'petal-security-config-')); });
afterEach(() => { rmSync(tmp, { recursive: true, force: true }); });

/** Writes petal.yaml with `text` and loads its security section as the server would. */
function load(text: string): ReturnType<typeof loadSecurity> {
  const file = join(tmp, 'petal.yaml');
  writeFileSync(file, text);
  const data = (parse(text) ?? {}) as { security?: unknown };
  return loadSecurity(data.security, tmp, file);
}

function loadError(text: string): ConfigError {
  try {
    load(text);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

function writeFolderFile(name: string, text: string, folder = 'security'): string {
  mkdirSync(join(tmp, folder), { recursive: true });
  const file = join(tmp, folder, name);
  writeFileSync(file, text);
  return file;
}

describe('security config', () => {
  it('applies the defaults when the section is absent', () => {
    const s = loadSecurity(undefined, tmp);
    expect(s.folder).toBe(join(tmp, 'security'));
    expect(s.tokensFile).toBe(join(tmp, 'security', 'tokens.yaml'));
    expect(s.usersFile).toBe(join(tmp, 'security', 'users.yaml'));
    expect(s.anonymousRoles).toEqual(['anonymous', 'rest-anonymous']);
    expect(s.session).toEqual({ idleMinutes: 30, absoluteHours: 8 });
    expect(s.users.size).toBe(0); // no user ships by default
    expect(s.groups.size).toBe(0);
    expect([...s.roles.keys()].sort()).toEqual(['anonymous', 'rest-anonymous', 'superuser']);
  });

  it('ships built-in roles: secure by default', () => {
    const s = loadSecurity({}, tmp);
    expect(s.roles.get('rest-anonymous')!.uriPermissions).toEqual([
      { path: '/.rest/delivery/*', permission: 'get' }, { path: '/shop/v1/*', permission: 'getAndPost' },
      { path: '/.rest/openapi.json', permission: 'get' }, { path: '/.rest/openapi.yaml', permission: 'get' },
      { path: '/.petal/explorer', permission: 'get' }, { path: '/.petal/explorer/*', permission: 'get' },
      { path: '/.graphql', permission: 'getAndPost' }, { path: '/.graphiql', permission: 'get' }, { path: '/.graphiql/*', permission: 'get' },
    ]);
    expect(s.roles.get('rest-anonymous')!.workspacePermissions.size).toBe(0);
    expect(s.roles.get('anonymous')!.uriPermissions).toEqual([
      { path: '/.health', permission: 'get' }, { path: '/dam/*', permission: 'get' }, { path: '/.imaging/*', permission: 'get' },
    ]);
    expect(s.roles.get('anonymous')!.workspacePermissions.size).toBe(0);
    const su = s.roles.get('superuser')!;
    expect(su.uriPermissions).toEqual([{ path: '/*', permission: 'getAndPost' }]);
    expect(su.workspacePermissions.get('*')).toEqual([{ path: '/', permission: 'readWrite' }, { path: '/*', permission: 'readWrite' }]);
    expect(s.definedIn.roles.get('superuser')).toBe(BUILT_IN);
  });

  it('lets a configured role replace a built-in one of the same name', () => {
    const s = load(`security:
  roles:
    anonymous:
      workspacePermissions:
        website: [ { path: /travel, permission: read }, { path: '/travel/*', permission: read } ]
`);
    const anon = s.roles.get('anonymous')!;
    expect(anon.uriPermissions).toEqual([]); // replaced, not merged
    expect(anon.workspacePermissions.get('website')).toEqual([
      { path: '/travel', permission: 'read' }, { path: '/travel/*', permission: 'read' },
    ]);
    expect(s.definedIn.roles.get('anonymous')).toBe(join(tmp, 'petal.yaml'));
    expect(s.roles.get('rest-anonymous')!.uriPermissions).toHaveLength(9); // the built-in one, untouched
  });

  it('reads the full shape with its defaults', () => {
    const s = load(`security:
  anonymousRoles: [rest-anonymous]
  session: { idleMinutes: 5 }
  users:
    alice: { passwordHash: '${hash}', roles: [editor], groups: [staff] }
  groups:
    staff: { roles: [rest-anonymous] }
  roles:
    editor:
      uriPermissions: [ { path: '/.rest/private/*', permission: get } ]
`);
    expect(s.anonymousRoles).toEqual(['rest-anonymous']);
    expect(s.session).toEqual({ idleMinutes: 5, absoluteHours: 8 });
    expect(s.users.get('alice')).toEqual({ passwordHash: hash, roles: ['editor'], groups: ['staff'], enabled: true });
    expect(s.groups.get('staff')).toEqual({ roles: ['rest-anonymous'], groups: [] });
    expect(s.roles.get('editor')!.workspacePermissions.size).toBe(0);
  });

  it('merges the *.yaml files of the folder with petal.yaml', () => {
    const usersFile = writeFolderFile('users.yaml', `users:\n  bob: { passwordHash: '${hash}', roles: [editor] }\n`);
    writeFolderFile('roles.yaml', 'roles:\n  editor: { uriPermissions: [ { path: /x, permission: get } ] }\n');
    writeFolderFile('tokens.yaml', 'tokens: []\n'); // not an identities file
    writeFolderFile('.users.yaml.123.tmp', 'garbage: [');
    writeFolderFile('README.md', '# not yaml');
    const s = load(`security:\n  groups: { staff: { roles: [editor] } }\n`);
    expect([...s.users.keys()]).toEqual(['bob']);
    expect(s.definedIn.users.get('bob')).toBe(usersFile);
    expect(s.roles.has('editor')).toBe(true);
    expect(s.groups.has('staff')).toBe(true);
  });

  it('reads a configured folder relative to petal.yaml, and refuses one that is missing', () => {
    writeFolderFile('a.yaml', 'roles:\n  r1: {}\n', 'conf/sec');
    expect(load('security:\n  folder: conf/sec\n').roles.has('r1')).toBe(true);
    expect(loadError('security:\n  folder: ./nope\n').reason).toMatch(/does not exist/);
  });

  it('refuses a name defined twice, naming both files', () => {
    const a = writeFolderFile('a.yaml', 'roles:\n  editor: {}\n');
    const b = writeFolderFile('b.yaml', 'roles:\n  editor: {}\n');
    const err = loadError('');
    expect(err.message).toContain(a);
    expect(err.message).toContain(b);
    expect(err.reason).toMatch(/role editor is defined twice/);
    rmSync(b);
    const both = loadError('security:\n  roles:\n    editor: {}\n');
    expect(both.message).toContain(a);
    expect(both.message).toContain(join(tmp, 'petal.yaml'));
  });

  it('refuses a user naming an unknown role or group', () => {
    expect(loadError(`security:\n  users:\n    alice: { passwordHash: '${hash}', roles: [editr] }\n`).reason)
      .toMatch(/user alice names unknown role editr/);
    expect(loadError(`security:\n  users:\n    alice: { passwordHash: '${hash}', groups: [staf] }\n`).reason)
      .toMatch(/user alice names unknown group staf/);
    expect(loadError('security:\n  groups:\n    g: { roles: [nope] }\n').reason).toMatch(/group g names unknown role nope/);
    expect(loadError('security:\n  anonymousRoles: [nope]\n').reason).toMatch(/anonymousRoles names unknown role nope/);
  });

  it('refuses a group cycle', () => {
    const err = loadError('security:\n  groups:\n    a: { groups: [b] }\n    b: { groups: [c] }\n    c: { groups: [a] }\n');
    expect(err.reason).toMatch(/cycle: a → b → c → a/);
    expect(loadError('security:\n  groups:\n    self: { groups: [self] }\n').reason).toMatch(/cycle: self → self/);
  });

  it('names the path and line of a bad permission value', () => {
    const err = loadError(`security:
  roles:
    editor:
      uriPermissions:
        - { path: /a, permission: get }
        - { path: /b, permission: write }
`);
    expect(err.reason).toMatch(/^security\.roles\.editor\.uriPermissions\.1\.permission: /);
    expect(err.line).toBe(6);
    const file = writeFolderFile('roles.yaml', 'roles:\n  r:\n    workspacePermissions:\n      website:\n        - { path: /a, permission: readwrite }\n');
    const inFolder = loadError('');
    expect(inFolder.file).toBe(file);
    expect(inFolder.reason).toMatch(/^roles\.r\.workspacePermissions\.website\.0\.permission: /);
    expect(inFolder.line).toBe(5);
  });

  it('refuses malformed hashes, unknown keys, odd names and paths', () => {
    expect(loadError("security:\n  users:\n    alice: { passwordHash: 'plain' }\n").reason).toMatch(/users\.alice\.passwordHash/);
    expect(loadError('security:\n  userz: {}\n').reason).toMatch(/unknown key\(s\) userz/);
    expect(loadError('security:\n  roles:\n    "bad name": {}\n').reason).toMatch(/roles/);
    expect(loadError('security:\n  roles:\n    r: { uriPermissions: [ { path: relative, permission: get } ] }\n').reason).toMatch(/must start with \//);
    expect(loadError('security:\n  roles:\n    r: { uriPermissions: [ { path: /a/../b, permission: get } ] }\n').reason).toMatch(/\.\./);
    writeFolderFile('users.yml', 'users: {}\n');
    expect(loadError('').reason).toMatch(/\.yaml, not \.yml/);
  });
});

describe('security folder files within bounds', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'petal-secbounds-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses nested aliases ("billion laughs") in a security file with a ConfigError naming it', () => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const lines = [`x0: &l0 [${keys.map(() => 'lol').join(', ')}]`];
    for (let l = 1; l <= 8; l++) lines.push(`x${l}: &l${l} [${keys.map(() => `*l${l - 1}`).join(', ')}]`);
    writeFileSync(join(dir, 'users.yaml'), `${lines.join('\n')}\n`);
    expect(() => loadSecurity({ folder: dir }, dir)).toThrow(ConfigError);
    expect(() => loadSecurity({ folder: dir }, dir)).toThrow(/users\.yaml.*aliases expand too much/s);
  });

  it('refuses a security file larger than 4 MiB before reading it, and a logouts file alike', () => {
    writeFileSync(join(dir, 'roles.yaml'), `# ${'x'.repeat(4 * 1024 * 1024)}\n`);
    expect(() => loadSecurity({ folder: dir }, dir)).toThrow(/roles\.yaml.*larger than 4194304 bytes/s);
    rmSync(join(dir, 'roles.yaml'));
    writeFileSync(join(dir, 'logouts.yaml'), `# ${'x'.repeat(4 * 1024 * 1024)}\n`);
    expect(() => loadSecurity({ folder: dir }, dir)).toThrow(/logouts\.yaml.*larger than 4194304 bytes/s);
  });
});
