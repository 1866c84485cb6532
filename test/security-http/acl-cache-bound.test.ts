// Issue 13, points 2 and 7 (security side): the workspace-permission decisions memoized per path are
// bounded in bytes (`security.aclCacheMaxBytes`) whatever paths callers ask for, misses included,
// and a security reload drops them, so no decision outlives the rules it came from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSecurity } from '../../src/config/security-config.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { get } from './helpers.js';

const MAX = 64 * 1024;
const DEFINITIONS = { 'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n' };
const CONTENT = {
  'website.site.yaml': `
'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '30000000-0000-4000-8000-000000000001'
  'title': 'Site'
  'secret':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '30000000-0000-4000-8000-000000000002'
    'title': 'Secret'
`,
};

function security(denySecret: boolean) {
  return {
    aclCacheMaxBytes: MAX,
    roles: {
      anonymous: {
        workspacePermissions: {
          website: [
            { path: '/', permission: 'read' }, { path: '/*', permission: 'read' },
            ...(denySecret ? [{ path: '/site/secret', permission: 'deny' }] : []),
          ],
        },
      },
    },
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ definitions: DEFINITIONS, content: CONTENT, security: security(true) });
});
afterAll(async () => t?.close());

describe('workspace-permission cache', () => {
  it('stays under security.aclCacheMaxBytes under a flood of distinct paths, and stays correct', async () => {
    const long = 'x'.repeat(300);
    for (let i = 0; i < 1500; i++) {
      const res = await get(t.app, `/.rest/delivery/pages/site/${long}-${i}`);
      expect(res.status).toBe(404);
    }
    const stats = t.security.aclCacheStats();
    expect(stats.maxBytes).toBe(MAX);
    expect(stats.entries).toBeGreaterThan(0);
    expect(stats.bytes).toBeLessThanOrEqual(MAX);
    expect(stats.evictions).toBeGreaterThan(0); // the flood did exceed the bound
    // Evictions change nothing about the answers.
    expect((await get(t.app, '/.rest/delivery/pages/site/secret')).status).toBe(404);
    expect((await get(t.app, '/.rest/delivery/pages/site')).status).toBe(200);
  });

  it('is dropped on a security reload: a denied node becomes readable at once, and back', async () => {
    expect((await get(t.app, '/.rest/delivery/pages/site/secret')).status).toBe(404);
    t.security.reload(loadSecurity(security(false), t.dir));
    expect(t.security.aclCacheStats().entries).toBe(0);
    expect((await get(t.app, '/.rest/delivery/pages/site/secret')).status).toBe(200);
    t.security.reload(loadSecurity(security(true), t.dir));
    expect((await get(t.app, '/.rest/delivery/pages/site/secret')).status).toBe(404);
  });
});
