// The response cache never carries rights across callers: answers of different role sets never share
// an entry, in either order of requests; signed-in answers are private; a security reload that changes
// what a role set may read drops the cached answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadSecurity } from '../../src/config/security-config.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf } from '../security-http/helpers.js';

const FIX = fileURLToPath(new URL('../fixtures/references/content/', import.meta.url));

let t: TestApp;
let ann: string;
let bob: string;

function securityConfig(hash: string, anonymousSeesHidden: boolean) {
  return {
    roles: {
      anonymous: {
        uriPermissions: [{ path: '/.rest/*', permission: 'get' }],
        workspacePermissions: {
          category: [{ path: '/*', permission: 'read' }, ...(anonymousSeesHidden ? [] : [{ path: '/tour-types/hidden', permission: 'deny' }])],
        },
      },
      full: { workspacePermissions: { category: [{ path: '/tour-types/hidden', permission: 'read' }] } },
    },
    // bob has no role of his own: the same role set as anonymous callers.
    authenticatedRoles: ['anonymous', 'rest-anonymous'],
    users: { ann: { passwordHash: hash, roles: ['full'] }, bob: { passwordHash: hash, roles: [] } },
  };
}

beforeAll(async () => {
  t = await createTestApp({
    contentPaths: [FIX],
    definitions: {
      'delivery/cats.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: category\nnodeTypes: [mgnl:category]\ntimeToLive: 30\n',
      'delivery/tree.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: category\ndepth: 1\ntimeToLive: 30\n',
    },
    security: securityConfig(await hashOf('correct horse'), false),
  });
  ann = basic('ann', 'correct horse');
  bob = basic('bob', 'correct horse');
});
afterAll(async () => {
  await t.close();
});

const names = (nodes: { '@name': string }[]) => nodes.map((n) => n['@name']);

const CASES = [
  {
    label: 'Get children',
    url: '/.rest/delivery/cats/tour-types@nodes',
    anon: (r: { status: number; body: any }) => expect(names(r.body)).toEqual(['active', 'beach']),
    user: (r: { status: number; body: any }) => expect(names(r.body)).toEqual(['active', 'beach', 'hidden']),
  },
  {
    label: 'Read node',
    url: '/.rest/delivery/tree/tour-types',
    anon: (r: { status: number; body: any }) => expect(r.body['@nodes']).toEqual(['active', 'beach']),
    user: (r: { status: number; body: any }) => expect(r.body['@nodes']).toEqual(['active', 'beach', 'hidden']),
  },
  {
    label: 'Read node of a node only the user may read',
    url: '/.rest/delivery/tree/tour-types/hidden',
    anon: (r: { status: number; body: any }) => expect(r.status).toBe(404),
    user: (r: { status: number; body: any }) => expect(r.body.name).toBe('Hidden'),
  },
  {
    label: 'Query nodes',
    url: '/.rest/delivery/cats?orderBy=name',
    anon: (r: { status: number; body: any }) => expect(r.body.total).toBe(2),
    user: (r: { status: number; body: any }) => expect(r.body.total).toBe(3),
  },
];

// Callers: anonymous, ann (more rights) and bob (signed in, but only the anonymous role set).
const ORDERS = [['anonymous', 'ann', 'bob'], ['ann', 'anonymous', 'bob'], ['bob', 'ann', 'anonymous'], ['ann', 'bob', 'anonymous']] as const;

describe('cached answers and role sets', () => {
  for (const c of CASES) {
    for (const order of ORDERS) {
      it(`${c.label}: ${order.join(', then ')}`, async () => {
        t.app.responseCache!.clear();
        for (let round = 0; round < 2; round++) {
          for (const who of order) {
            if (who === 'anonymous') c.anon(await getJson(t.app, c.url));
            else if (who === 'bob') c.anon(await getJson(t.app, c.url, { authorization: bob }));
            else c.user(await getJson(t.app, c.url, { authorization: ann }));
          }
        }
      });
    }
  }

  it('keeps signed-in answers private even when the role set equals the anonymous one', async () => {
    t.app.responseCache!.clear();
    const url = '/.rest/delivery/cats/tour-types@nodes';
    const anon = await getJson(t.app, url);
    const signedIn = await getJson(t.app, url, { authorization: bob });
    const anonAgain = await getJson(t.app, url);
    expect(signedIn.raw).toBe(anon.raw);
    expect(signedIn.headers.etag).toBe(anon.headers.etag);
    expect(anon.headers['cache-control']).toBe('max-age=30');
    expect(anon.headers.vary).toBe('Accept-Language');
    expect(signedIn.headers['cache-control']).toBe('private, max-age=30');
    expect(signedIn.headers.vary).toBe('Accept-Language, Authorization, Cookie');
    expect(anonAgain.headers['cache-control']).toBe('max-age=30');
    const notModified = await t.app.inject({ method: 'GET', url, headers: { authorization: bob, 'if-none-match': String(anon.headers.etag) } });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['cache-control']).toBe('private, max-age=30');
  });

  it('drops cached answers when a security reload changes what a role set may read', async () => {
    const url = '/.rest/delivery/cats/tour-types@nodes';
    const before = await getJson(t.app, url);
    expect(names(before.body)).toEqual(['active', 'beach']);
    const hash = await hashOf('correct horse');
    t.security.reload(loadSecurity(securityConfig(hash, true), t.dir));
    try {
      const after = await getJson(t.app, url);
      expect(names(after.body)).toEqual(['active', 'beach', 'hidden']);
    } finally {
      t.security.reload(loadSecurity(securityConfig(hash, false), t.dir));
    }
    expect(names((await getJson(t.app, url)).body)).toEqual(['active', 'beach']);
  });
});
