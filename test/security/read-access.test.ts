// The read rules a session asks for per workspace: workspaces without rules of their own share one
// list, so workspace names a request makes up (the Nodes API takes any) never grow what is remembered.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSecurity } from '../../src/config/security-config.js';
import { SecurityService } from '../../src/security/security-service.js';

describe('readAccess().rulesFor', () => {
  const dir = mkdtempSync(join(tmpdir(), 'petal-read-access-'));
  const service = new SecurityService(loadSecurity({
    anonymousRoles: ['reader'],
    roles: { reader: { workspacePermissions: { website: [{ path: '/*', permission: 'read' }, { path: '/private/*', permission: 'deny' }] } } },
  }, dir));
  const access = service.readAccess(service.anonymous());

  it('remembers one list for every workspace without rules of its own, however many names are asked', () => {
    const first = access.rulesFor('made-up-0');
    for (let i = 1; i < 1_000; i++) expect(access.rulesFor(`made-up-${i}-${'x'.repeat(100)}`)).toBe(first);
    expect(first).toEqual([]);
  });

  it('keeps the rules of a workspace that has some', () => {
    const rules = access.rulesFor('website');
    expect(rules).toEqual([{ pattern: '/private/*', read: false }, { pattern: '/*', read: true }]);
    expect(access.rulesFor('website')).toBe(rules);
    expect(access.canRead('website', '/private/x')).toBe(false);
    expect(access.canRead('website', '/public')).toBe(true);
  });
});
