// Tests for `petal user add` and `petal token create` run in this process (test/helpers/run-cli.ts):
// the files they write (mode, content that verifies), and their refusals.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTokens } from '../../src/security/api-tokens.js';
import { verifyPassword } from '../../src/security/password-hash.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';

let tmp: string;
let config: string;

/** Runs petal in this process with `input` on stdin (closed after it), without PETAL_* variables from our environment. */
function runPetal(args: readonly string[], input: string, cwd = tmp): Promise<CliRun> {
  return runCli(args, { cwd, stdin: input });
}

interface UsersShape { users: Record<string, { passwordHash: string; roles: string[]; groups: string[]; enabled: boolean }> }

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'petal-security-cli-'));
  config = join(tmp, 'petal.yaml');
  writeFileSync(config, 'port: 8080\nsecurity:\n  roles:\n    editor:\n      uriPermissions: [ { path: /.rest/private/*, permission: get } ]\n');
});

afterAll(() => { if (tmp) rmSync(tmp, { recursive: true, force: true }); });

describe('petal user add', () => {
  it('writes a scrypt hash that verifies into <folder>/users.yaml, folder 0700 and file 0600', async () => {
    const r = await runPetal(['user', 'add', 'bob', '--role', 'editor', '--password-stdin', '--config', config], 'bob-password-1\n');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/added user bob/);
    const folder = join(tmp, 'security');
    const file = join(folder, 'users.yaml');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bob = (parse(readFileSync(file, 'utf8')) as UsersShape).users.bob!;
    expect(bob.roles).toEqual(['editor']);
    expect(bob.enabled).toBe(true);
    expect(bob.passwordHash).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
    expect(await verifyPassword('bob-password-1', bob.passwordHash)).toBe(true);
    expect(await verifyPassword('bob-password-1\n', bob.passwordHash)).toBe(false);
  });

  it('updates the password of an existing user', async () => {
    const r = await runPetal(['user', 'add', 'bob', '--role', 'editor', '--password-stdin', '--config', config], 'bob-password-2');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/updated user bob/);
    const bob = (parse(readFileSync(join(tmp, 'security', 'users.yaml'), 'utf8')) as UsersShape).users.bob!;
    expect(await verifyPassword('bob-password-2', bob.passwordHash)).toBe(true);
  });

  it('refuses short passwords, unknown roles and invalid names, writing nothing', async () => {
    const before = readFileSync(join(tmp, 'security', 'users.yaml'), 'utf8');
    const short = await runPetal(['user', 'add', 'eve', '--role', 'editor', '--password-stdin', '--config', config], 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/too short/);
    const empty = await runPetal(['user', 'add', 'eve', '--role', 'editor', '--password-stdin', '--config', config], '');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/empty/);
    const role = await runPetal(['user', 'add', 'eve', '--role', 'editr', '--password-stdin', '--config', config], 'long-enough-pw\n');
    expect(role.code).toBe(1);
    expect(role.stderr).toMatch(/role editr is not defined/);
    const name = await runPetal(['user', 'add', 'e/ve', '--role', 'editor', '--password-stdin', '--config', config], 'long-enough-pw\n');
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/invalid user name/);
    expect(readFileSync(join(tmp, 'security', 'users.yaml'), 'utf8')).toBe(before);
  });

  it('refuses to prompt without a terminal', async () => {
    const r = await runPetal(['user', 'add', 'eve', '--role', 'editor', '--config', config], 'long-enough-pw\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--password-stdin/);
  });

  it('uses ./security in the current folder when there is no petal.yaml', async () => {
    const cwd = join(tmp, 'bare');
    mkdirSync(cwd);
    const r = await runPetal(['user', 'add', 'root', '--role', 'superuser', '--password-stdin'], 'root-password\n', cwd);
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'security', 'users.yaml'))).toBe(true);
  });
});

describe('petal token create', () => {
  it('prints a ptl_ token once on stdout whose SHA-256 is stored in tokens.yaml (0600)', async () => {
    const r = await runPetal(['token', 'create', 'ci', '--user', 'bob', '--expires-days', '30', '--config', config], '');
    expect(r.code).toBe(0);
    const token = r.stdout.trim();
    expect(token).toMatch(/^ptl_[A-Za-z0-9_-]{43}$/);
    expect(r.stderr).toMatch(/not stored in clear/);
    const file = join(tmp, 'security', 'tokens.yaml');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(token);
    const [record] = readTokens(file);
    expect(record).toMatchObject({ name: 'ci', user: 'bob', sha256: createHash('sha256').update(token).digest('hex') });
    expect(Date.parse(record!.expires!) - Date.parse(record!.created)).toBe(30 * 24 * 60 * 60 * 1000);
  });

  it('refuses a duplicate name, an unknown user and a bad expiry', async () => {
    const dup = await runPetal(['token', 'create', 'ci', '--user', 'bob', '--config', config], '');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/exists already/);
    const unknown = await runPetal(['token', 'create', 'other', '--user', 'nobody', '--config', config], '');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/user nobody is not defined/);
    const expiry = await runPetal(['token', 'create', 'other', '--user', 'bob', '--expires-days', '-1', '--config', config], '');
    expect(expiry.code).toBe(2);
    expect(readTokens(join(tmp, 'security', 'tokens.yaml'))).toHaveLength(1);
  });

  it('is listed in the help text', async () => {
    const r = await runPetal(['help'], '');
    expect(r.stdout).toContain('petal user add NAME');
    expect(r.stdout).toContain('petal token create NAME');
    expect(r.stdout).toContain('petal user passwd NAME');
    expect(r.stdout).toContain('petal token list [--user U] | revoke NAME | revoke --user U');
  });
});

describe('petal user logout|disable|enable|remove', () => {
  // Issue 13 point 9: the server learns of these through the security folder it watches.
  it('records logouts, flips enabled and removes, as loadSecurity then reads them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petal-security-cli-state-'));
    try {
      const cfg = join(dir, 'petal.yaml');
      writeFileSync(cfg, 'security:\n  roles:\n    editor: {}\n  users:\n    yaml-user: { passwordHash: "$scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" }\n');
      expect((await runPetal(['user', 'add', 'eve', '--role', 'editor', '--password-stdin', '--config', cfg], 'eve-password-1', dir)).code).toBe(0);
      const at = Date.now();
      const logout = await runPetal(['user', 'logout', 'eve', '--config', cfg], '', dir);
      expect(logout.code, logout.stderr).toBe(0);
      expect(logout.stdout).toMatch(/ended the sessions of user eve/);
      const read = () => loadSecurity(parse(readFileSync(cfg, 'utf8')).security, dir, cfg);
      expect(read().logouts.get('eve')).toBeGreaterThanOrEqual(at - 1000);
      expect(statSync(join(dir, 'security', 'logouts.yaml')).mode & 0o777).toBe(0o600);

      expect((await runPetal(['user', 'disable', 'eve', '--config', cfg], '', dir)).code).toBe(0);
      expect(read().users.get('eve')?.enabled).toBe(false);
      expect((await runPetal(['user', 'enable', 'eve', '--config', cfg], '', dir)).code).toBe(0);
      expect(read().users.get('eve')?.enabled).toBe(true);
      // A user of petal.yaml can be logged out, not edited.
      expect((await runPetal(['user', 'logout', 'yaml-user', '--config', cfg], '', dir)).code).toBe(0);
      const edit = await runPetal(['user', 'disable', 'yaml-user', '--config', cfg], '', dir);
      expect(edit.code).toBe(1);
      expect(edit.stderr).toMatch(/defined here/);
      const unknown = await runPetal(['user', 'logout', 'nobody', '--config', cfg], '', dir);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/user nobody is not defined/);
      expect((await runPetal(['user', 'remove', 'eve', '--config', cfg], '', dir)).code).toBe(0);
      expect(read().users.has('eve')).toBe(false);
      expect((await runPetal(['help'], '', dir)).stdout).toContain('petal user logout|disable|enable|remove NAME');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
