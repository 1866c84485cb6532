// GET /.rest/nodes/v1/{workspace}{path}: the read half of the original's Nodes API through HTTP: its
// documented shape and key order, depth, excludeNodeTypes, includeMetadata, typed values, the URI rules
// (401 anonymous), workspace permissions (hidden node 404, hidden child left out), bounds and 304.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, get, hashOf, req } from '../security-http/helpers.js';

const PW = 'nodes-suite-password';

// The node of the original's documented example (/travel/about/company, read with includeMetadata=true),
// with the properties the example shows, plus a secret page and a node of every value type.
const WEBSITE = `
'travel':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '70000000-0000-4000-8000-000000000001'
  'title': 'Home'
  'about':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '70000000-0000-4000-8000-000000000002'
    'company':
      'jcr:primaryType': 'mgnl:page'
      'jcr:uuid': '8fa4a73f-51c3-40ac-b698-715595216186'
      'jcr:createdBy': 'admin'
      'hideInNav': false
      'mgnl:template': 'travel-demo:pages/standard'
      'mgnl:lastActivatedBy': 'superuser'
      'jcr:created': !date '2015-05-12T11:21:08.960+02:00'
  'secret':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '70000000-0000-4000-8000-000000000003'
    'title': 'TOP-SECRET-MARKER'
  'main':
    'jcr:primaryType': 'mgnl:area'
    'jcr:uuid': '70000000-0000-4000-8000-000000000004'
    'c0':
      'jcr:primaryType': 'mgnl:component'
      'jcr:uuid': '70000000-0000-4000-8000-000000000005'
      'text': 'Hello'
  'typed':
    'jcr:primaryType': 'mgnl:contentNode'
    'jcr:uuid': '70000000-0000-4000-8000-000000000006'
    'aString': 'text'
    'aLong': !long 42
    'aDouble': !double 2
    'aDecimal': !decimal 12.50
    'aBoolean': !boolean true
    'aDate': !date '2021-03-04T05:06:07.000-05:00'
    'aReference': !reference '70000000-0000-4000-8000-000000000002'
    'aWeakReference': !weakreference '70000000-0000-4000-8000-000000000003'
    'aName': !name 'mgnl:page'
    'aPath': !path '/travel/about'
    'aUri': !uri 'https://example.com/a?b=c'
    'tags': ['red', 'green']
    'longs': [!long 1, !long 2]
    'none': []
`;

const read = (path: string) => ({ path, permission: 'read' });
const deny = (path: string) => ({ path, permission: 'deny' });

function security(hash: string) {
  return {
    roles: {
      reader: {
        uriPermissions: [{ path: '/.rest/nodes/*', permission: 'get' }],
        workspacePermissions: { website: [read('/'), read('/*'), deny('/travel/secret'), deny('/travel/secret/*')] },
      },
    },
    users: {
      boss: { passwordHash: hash, roles: ['superuser'] },
      limited: { passwordHash: hash, roles: ['reader'] },
    },
  };
}

let t: TestApp;
let cms: TestApp;
beforeAll(async () => {
  const s = security(await hashOf(PW));
  t = await createTestApp({ content: { 'website.travel.yaml': WEBSITE, 'config.wide.yaml': wideFolder() }, security: s, namespace: 'mgnl' });
  cms = await createTestApp({ content: { 'website.travel.yaml': WEBSITE }, security: s, namespace: 'cms' });
});
afterAll(async () => {
  await t?.close();
  await cms?.close();
});

const boss = { authorization: basic('boss', PW) };
const limited = { authorization: basic('limited', PW) };
const URL = '/.rest/nodes/v1/website';

const prop = (name: string, type: string, values: string[], multiple = false) => ({ name, type, multiple, values });

/** A folder of 101 children of 100 children each: 10,202 nodes from the folder down. */
function wideFolder(): string {
  let y = "'wide':\n  'jcr:primaryType': 'mgnl:folder'\n";
  for (let i = 0; i <= 100; i++) {
    y += `  'p${i}':\n    'jcr:primaryType': 'mgnl:contentNode'\n`;
    for (let j = 0; j < 100; j++) y += `    'c${j}':\n      'jcr:primaryType': 'mgnl:contentNode'\n`;
  }
  return y;
}

describe('GET /.rest/nodes/v1', () => {
  it('answers the documented example in its shape and key order, metadata included', async () => {
    const res = await get(t.app, `${URL}/travel/about/company?includeMetadata=true`, boss);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(res.body)).toEqual(['name', 'type', 'path', 'identifier', 'properties']);
    expect(res.body).toEqual({
      name: 'company',
      type: 'mgnl:page',
      path: '/travel/about/company',
      identifier: '8fa4a73f-51c3-40ac-b698-715595216186',
      properties: [
        prop('jcr:primaryType', 'Name', ['mgnl:page']),
        prop('jcr:uuid', 'String', ['8fa4a73f-51c3-40ac-b698-715595216186']),
        prop('jcr:createdBy', 'String', ['admin']),
        prop('hideInNav', 'Boolean', ['false']),
        prop('mgnl:template', 'String', ['travel-demo:pages/standard']),
        prop('mgnl:lastActivatedBy', 'String', ['superuser']),
        prop('jcr:created', 'Date', ['2015-05-12T11:21:08.960+02:00']),
      ],
    });
    for (const p of res.body.properties) expect(Object.keys(p)).toEqual(['name', 'type', 'multiple', 'values']);
  });

  it('leaves the jcr: and mgnl: properties out without includeMetadata', async () => {
    const res = await get(t.app, `${URL}/travel/about/company`, boss);
    expect(res.body.properties).toEqual([prop('hideInNav', 'Boolean', ['false'])]);
    const off = await get(t.app, `${URL}/travel/about/company?includeMetadata=false`, boss);
    expect(off.raw).toBe(res.raw);
  });

  it('writes every type as the original does, multi-value included', async () => {
    const res = await get(t.app, `${URL}/travel/typed`, boss);
    expect(res.body.properties).toEqual([
      prop('aString', 'String', ['text']),
      prop('aLong', 'Long', ['42']),
      prop('aDouble', 'Double', ['2.0']),
      prop('aDecimal', 'Decimal', ['12.50']),
      prop('aBoolean', 'Boolean', ['true']),
      prop('aDate', 'Date', ['2021-03-04T05:06:07.000-05:00']),
      prop('aReference', 'Reference', ['70000000-0000-4000-8000-000000000002']),
      prop('aWeakReference', 'WeakReference', ['70000000-0000-4000-8000-000000000003']),
      prop('aName', 'Name', ['mgnl:page']),
      prop('aPath', 'Path', ['/travel/about']),
      prop('aUri', 'URI', ['https://example.com/a?b=c']),
      prop('tags', 'String', ['red', 'green'], true),
      prop('longs', 'Long', ['1', '2'], true),
      prop('none', 'String', [], true),
    ]);
  });

  it('follows depth: 0 the node alone, 1 its children, 2 their children', async () => {
    const d0 = await get(t.app, `${URL}/travel`, boss);
    expect(d0.body.nodes).toBeUndefined();
    const d1 = await get(t.app, `${URL}/travel?depth=1`, boss);
    expect(d1.body.nodes.map((n: { name: string }) => n.name)).toEqual(['about', 'secret', 'main', 'typed']);
    expect(d1.body.nodes.every((n: object) => !('nodes' in n))).toBe(true);
    expect(Object.keys(d1.body)).toEqual(['name', 'type', 'path', 'identifier', 'properties', 'nodes']);
    const d2 = await get(t.app, `${URL}/travel?depth=2`, boss);
    const main = d2.body.nodes.find((n: { name: string }) => n.name === 'main');
    expect(main.nodes).toEqual([{
      name: 'c0', type: 'mgnl:component', path: '/travel/main/c0', identifier: '70000000-0000-4000-8000-000000000005',
      properties: [prop('text', 'String', ['Hello'])], nodes: [],
    }].map(({ nodes: _n, ...rest }) => rest));
    expect(d2.body.nodes.find((n: { name: string }) => n.name === 'typed').nodes).toEqual([]);
  });

  it('leaves nodes of excludeNodeTypes out, with their subtrees, in either prefix', async () => {
    const res = await get(t.app, `${URL}/travel?depth=2&excludeNodeTypes=mgnl:area,mgnl:contentNode`, boss);
    expect(res.body.nodes.map((n: { name: string }) => n.name)).toEqual(['about', 'secret']);
    const cmsNames = await get(t.app, `${URL}/travel?depth=1&excludeNodeTypes=cms:page`, boss);
    expect(cmsNames.body.nodes.map((n: { name: string }) => n.name)).toEqual(['main', 'typed']);
  });

  it('answers the workspace root for the workspace alone, and 404 for an unknown workspace', async () => {
    const res = await get(t.app, `${URL}?depth=1`, boss);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: '', type: 'rep:root', path: '/' });
    expect(res.body.nodes.map((n: { name: string }) => n.name)).toEqual(['travel']);
    const none = await get(t.app, '/.rest/nodes/v1/nowhere', boss);
    expect(none.status).toBe(404);
    expect((await get(t.app, '/.rest/nodes/v1/nowhere/travel', boss)).status).toBe(404);
  });

  it('answers 401 to anonymous callers', async () => {
    const res = await get(t.app, `${URL}/travel`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('notAuthorized');
    expect(res.raw).not.toContain('Home');
  });

  it('answers 404 for a node the caller may not read, and leaves it out of children', async () => {
    const hidden = await get(t.app, `${URL}/travel/secret`, limited);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('pathNotFound');
    const parent = await get(t.app, `${URL}/travel?depth=3`, limited);
    expect(parent.status).toBe(200);
    expect(parent.body.nodes.map((n: { name: string }) => n.name)).toEqual(['about', 'main', 'typed']);
    expect(parent.raw).not.toContain('TOP-SECRET-MARKER');
    expect((await get(t.app, `${URL}/travel/secret`, boss)).status).toBe(200);
  });

  it('answers 400 naming the parameter for a bad depth, includeMetadata or too many excluded types', async () => {
    for (const bad of ['11', '-1', '1.5', 'x', '']) {
      const res = await get(t.app, `${URL}/travel?depth=${bad}`, boss);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('invalidParameter');
      expect(res.body.error.message).toContain('"depth"');
    }
    expect((await get(t.app, `${URL}/travel?depth=1&depth=2`, boss)).body.error.message).toContain('"depth"');
    expect((await get(t.app, `${URL}/travel?includeMetadata=yes`, boss)).body.error.message).toContain('"includeMetadata"');
    const many = Array.from({ length: 51 }, (_, i) => `t:${i}`).join(',');
    const res = await get(t.app, `${URL}/travel?excludeNodeTypes=${many}`, boss);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('"excludeNodeTypes"');
  });

  it('refuses an answer of more than 10,000 nodes with a 400 naming depth', async () => {
    const res = await get(t.app, '/.rest/nodes/v1/config/wide?depth=2', boss);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalidParameter');
    expect(res.body.error.message).toContain('"depth"');
    expect(res.body.error.message).toContain('10000');
    const one = await get(t.app, '/.rest/nodes/v1/config/wide?depth=1', boss);
    expect(one.status).toBe(200);
    expect(one.body.nodes).toHaveLength(101);
    const under = await get(t.app, '/.rest/nodes/v1/config/wide/p7?depth=10', boss);
    expect(under.body.nodes).toHaveLength(100);
  });

  it('answers an ETag holding the node identity, 304 on If-None-Match, never shared-cached', async () => {
    const res = await get(t.app, `${URL}/travel/about/company`, boss);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"8fa4a73f-51c3-40ac-b698-715595216186\.[0-9a-f-]+\.[0-9a-f-]+"$/);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const again = await get(t.app, `${URL}/travel/about/company`, { ...boss, 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.raw).toBe('');
    const other = await get(t.app, `${URL}/travel/about/company?includeMetadata=true`, { ...boss, 'if-none-match': etag });
    expect(other.status).toBe(200);
    const otherTag = other.headers.etag as string;
    // Same node, same stored state: the identity and state parts agree, the representation differs.
    expect(otherTag.split('.').slice(0, 2)).toEqual(etag.split('.').slice(0, 2));
    expect(otherTag).not.toBe(etag);
  });

  it('answers 405 with Allow to other methods than the read and the writes (nodes-write.test.ts), and HEAD like GET without a body', async () => {
    const res = await req(t.app, { method: 'PATCH', url: `${URL}/travel`, headers: boss });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, PUT, POST, DELETE');
    const head = await req(t.app, { method: 'HEAD', url: `${URL}/travel`, headers: boss });
    expect(head.status).toBe(200);
    expect(head.raw).toBe('');
  });

  it('names types and system properties with the configured namespace (cms)', async () => {
    const res = await get(cms.app, `${URL}/travel/about/company?includeMetadata=true`, boss);
    expect(res.body.type).toBe('cms:page');
    const names = res.body.properties.map((p: { name: string }) => p.name);
    expect(names).toContain('cms:template');
    expect(res.body.properties[0]).toEqual(prop('jcr:primaryType', 'Name', ['cms:page']));
  });
});
