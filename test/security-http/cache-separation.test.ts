// Caches never carry rights across callers: the query index keeps filter bit sets shared by all
// callers, so a caller's read scope must still apply to every answer, in any order of requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { hashPassword } from '../../src/security/password-hash.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const FIX = fileURLToPath(new URL('../fixtures/references/content/', import.meta.url));
let t: TestApp;
let basic: string;

beforeAll(async () => {
  const previous = process.env.PETAL_QUERY_INDEX_THRESHOLD;
  process.env.PETAL_QUERY_INDEX_THRESHOLD = '0'; // the in-memory index and its filter cache
  try {
    t = await createTestApp({
      contentPaths: [FIX],
      definitions: { 'delivery/cats.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: category\nnodeTypes: [mgnl:category]\n' },
      security: {
        roles: {
          anonymous: {
            uriPermissions: [{ path: '/.rest/*', permission: 'get' }],
            workspacePermissions: { category: [{ path: '/*', permission: 'read' }, { path: '/tour-types/hidden', permission: 'deny' }] },
          },
          full: { workspacePermissions: { category: [{ path: '/tour-types/hidden', permission: 'read' }] } },
        },
        authenticatedRoles: ['anonymous', 'rest-anonymous'],
        users: { ann: { passwordHash: await hashPassword('correct horse'), roles: ['full'] } },
      },
    });
  } finally {
    if (previous === undefined) delete process.env.PETAL_QUERY_INDEX_THRESHOLD;
    else process.env.PETAL_QUERY_INDEX_THRESHOLD = previous;
  }
  basic = `Basic ${Buffer.from('ann:correct horse').toString('base64')}`;
});
afterAll(async () => {
  await t.close();
});

describe('cache separation by role', () => {
  it('gives each caller its own answer to the same query, whoever asked first', async () => {
    const url = '/.rest/delivery/cats?name[like]=%25&orderBy=name';
    for (let round = 0; round < 2; round++) {
      const anon = await getJson(t.app, url);
      const user = await getJson(t.app, url, { authorization: basic });
      expect(anon.body.total).toBe(2);
      expect(anon.body.results.map((n: { name: string }) => n.name)).toEqual(['Active', 'Beach']);
      expect(user.body.total).toBe(3);
      expect(user.body.results.map((n: { name: string }) => n.name)).toEqual(['Active', 'Beach', 'Hidden']);
    }
    const again = await getJson(t.app, url);
    expect(again.raw).not.toContain('Hidden');
  });
});
