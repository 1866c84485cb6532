// Hardening III (issue 28) point 10, configuration half: a workspace name in petal.yaml (webhooks,
// security roles), in the security folder or in an endpoint definition follows the one pattern of
// model/names.ts; a name outside it is a configuration error naming the file and the line.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { loadDefinitions } from '../../src/delivery/load-definitions.js';
import { loadSecurity } from '../../src/config/security-config.js';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'petal-ws-names-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

function write(relative: string, text: string): string {
  const file = join(dir, relative);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError, but nothing was thrown');
}

const BAD = ['WEBSITE', 'Website', "'website '", "'-'", 'web.site', "'a:b'"];

describe('workspace names in configuration', () => {
  it('petal.yaml webhooks.workspaces: file and line', () => {
    for (const name of BAD) {
      const file = write('petal.yaml', `webhooks:\n  - name: hook\n    url: https://example.com/hook\n    secretEnv: HOOK_SECRET\n    workspaces: [website, ${name}]\n`);
      const err = configError(() => loadConfig({ config: file }, {}, dir));
      expect(err.file, name).toBe(file);
      expect(err.reason, name).toMatch(/^webhooks\.0\.workspaces\.1: a workspace name is a lowercase letter/);
      expect(err.line, name).toBe(5);
    }
    const ok = write('petal.yaml', 'webhooks:\n  - { name: hook, url: https://example.com/hook, secretEnv: HOOK_SECRET, workspaces: [website, shopProducts, my-app_2] }\n');
    expect(loadConfig({ config: ok }, {}, dir).webhooks?.[0]?.workspaces).toEqual(['website', 'shopProducts', 'my-app_2']);
  });

  it('security workspacePermissions keys, in petal.yaml and in the security folder: file and line; * still means every workspace', () => {
    for (const name of BAD) {
      const text = `security:\n  roles:\n    r:\n      workspacePermissions:\n        ${name}:\n          - { path: /, permission: read }\n`;
      const file = write('petal.yaml', text);
      const err = configError(() => loadSecurity((parse(text) as { security: unknown }).security, dir, file));
      expect(err.file, name).toBe(file);
      expect(err.reason, name).toMatch(/^security\.roles\.r\.workspacePermissions.*a workspace name is a lowercase letter/);
      expect(err.line, name).toBe(5);
    }
    const folderFile = write('security/roles.yaml', 'roles:\n  r:\n    workspacePermissions:\n      Website:\n        - { path: /, permission: read }\n');
    const inFolder = configError(() => loadSecurity({ folder: 'security' }, dir));
    expect(inFolder.file).toBe(folderFile);
    expect(inFolder.line).toBe(4);
    rmSync(folderFile);
    const text = "security:\n  roles:\n    r:\n      workspacePermissions:\n        '*': [{ path: /, permission: read }]\n        shopProducts: [{ path: /, permission: read }]\n";
    const roles = loadSecurity((parse(text) as { security: unknown }).security, dir, write('petal.yaml', text)).roles;
    expect([...roles.get('r')!.workspacePermissions.keys()]).toEqual(['*', 'shopProducts']);
  });

  it('an endpoint definition\'s workspace and a reference resolver\'s targetWorkspace: an error naming file and line', async () => {
    const base = '$type: jcrDeliveryEndpoint_v2\n';
    const a = write('mod/restEndpoints/a.yaml', `${base}workspace: WEBSITE\n`);
    const b = write('mod/restEndpoints/b.yaml', `${base}workspace: website\nreferences:\n  - name: r\n    propertyName: link\n    referenceResolver:\n      $type: jcrReferenceResolver\n      targetWorkspace: 'dam '\n`);
    write('mod/restEndpoints/c.yaml', `${base}workspace: shopProducts\n`);
    const result = await loadDefinitions([dir]);
    expect(result.definitions.map((d) => d.workspace)).toEqual(['shopProducts']);
    const errors = result.problems.filter((p) => p.severity === 'error');
    expect(errors.find((p) => p.file === a)).toMatchObject({ line: 2, reason: expect.stringMatching(/^workspace: "WEBSITE": a workspace name is a lowercase letter/) });
    expect(errors.find((p) => p.file === b)).toMatchObject({ line: 8, reason: expect.stringMatching(/targetWorkspace: "dam ": a workspace name/) });
  });
});
