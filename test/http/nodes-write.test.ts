// Issue 16 points 1 and 3: PUT / POST / DELETE of the Nodes API through HTTP (SQLite in `npm test`,
// PostgreSQL with PETAL_TEST_PG): round trips that GET and the delivery endpoint show at once, typed
// values, every 400 with nothing written, 404 / 409 / 412, maintained system properties, order, move and
// rename, and the one change event of each write.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, get, hashOf, req, type Res } from '../security-http/helpers.js';

const PW = 'nodes-write-password';
const API = '/.rest/nodes/v1/website';
const BOSS = { authorization: basic('boss', PW) };

const WEBSITE = `
'travel':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '71000000-0000-4000-8000-000000000001'
  'title': 'Home'
  'mgnl:created': !date '2015-05-12T11:21:08.960+02:00'
  'mgnl:createdBy': 'importer'
  'a':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '71000000-0000-4000-8000-00000000000a'
    'title': 'A'
    'deep':
      'jcr:primaryType': 'mgnl:area'
      'jcr:uuid': '71000000-0000-4000-8000-0000000000da'
  'b':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '71000000-0000-4000-8000-00000000000b'
    'title': 'B'
  'c':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '71000000-0000-4000-8000-00000000000c'
    'title': 'C'
`;

let t: TestApp;

beforeAll(async () => {
  const hash = await hashOf(PW);
  t = await createTestApp({
    definitions: { 'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n' },
    content: { 'website.travel.yaml': WEBSITE },
    security: {
      roles: { anonymous: { uriPermissions: [{ path: '/.rest/delivery/*', permission: 'get' }], workspacePermissions: { website: [{ path: '/*', permission: 'read' }] } } },
      users: { boss: { passwordHash: hash, roles: ['superuser'] } },
    },
  });
});
afterAll(async () => t?.close());

const send = (method: 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> =>
  req(t.app, { method, url: `${API}${path}`, headers: { ...BOSS, ...headers }, ...(body !== undefined ? { payload: body as object } : {}) });
const read = (path: string, query = '') => get(t.app, `${API}${path}${query}`, BOSS);
const prop = (name: string, type: string, values: unknown[], multiple = false) => ({ name, type, multiple, values });
const valuesOf = (res: Res) => Object.fromEntries((res.body.properties as { name: string; values: string[] }[]).map((p) => [p.name, p.values]));

/** What must not move when a write is refused: the events, the generation and the nodes. */
async function snapshot() {
  return { latest: await t.store.changes.latest(), generation: await t.store.generation(), nodes: await t.store.reads.countNodes() };
}
async function lastEvent() {
  const events = await t.store.changes.since((await t.store.changes.latest()) - 1, 10);
  return events[events.length - 1]!;
}

describe('PUT creates a child node', () => {
  it('creates the node and its children from the repository form, typed as imports type them, last among siblings', async () => {
    const before = await t.store.changes.latest();
    const res = await send('PUT', '/travel', {
      name: 'new', type: 'mgnl:page', path: '/travel/new', identifier: '71000000-0000-4000-8000-0000000000ee',
      properties: [
        prop('title', 'String', ['Hello REST']), prop('count', 'Long', ['42']), prop('ratio', 'Double', ['2']),
        prop('price', 'Decimal', ['12.50']), prop('on', 'Boolean', ['true']), prop('when', 'Date', ['2021-03-04T05:06:07-05:00']),
        prop('ref', 'Reference', ['71000000-0000-4000-8000-00000000000a']), prop('tags', 'String', ['x', 'y'], true),
        prop('mgnl:template', 'String', ['travel-demo:pages/standard']),
      ],
      nodes: [{ name: 'main', type: 'mgnl:area', properties: [], nodes: [{ name: 'c0', type: 'mgnl:component', properties: [prop('text', 'String', ['Hi'])] }] }],
    });
    expect(res.status, res.raw).toBe(200);
    expect(res.body).toMatchObject({ name: 'new', type: 'cms:page', path: '/travel/new', identifier: '71000000-0000-4000-8000-0000000000ee' });
    const got = await read('/travel/new', '?depth=2');
    expect(got.status).toBe(200);
    expect(got.headers.etag!.split('.').slice(0, 2)).toEqual(String(res.headers.etag).split('.').slice(0, 2));
    expect(valuesOf(got)).toMatchObject({ title: ['Hello REST'], count: ['42'], ratio: ['2.0'], price: ['12.50'], on: ['true'], when: ['2021-03-04T05:06:07.000-05:00'], tags: ['x', 'y'] });
    expect(got.body.nodes[0].nodes[0]).toMatchObject({ name: 'c0', path: '/travel/new/main/c0', type: 'cms:component' });
    const children = await read('/travel', '?depth=1');
    expect(children.body.nodes.map((n: { name: string }) => n.name)).toEqual(['a', 'b', 'c', 'new']);
    // The delivery endpoint shows it on the next request (its caches follow the write).
    const delivered = await get(t.app, '/.rest/delivery/pages/travel/new');
    expect(delivered.status).toBe(200);
    expect(delivered.body.title).toBe('Hello REST');
    const events = await t.store.changes.since(before, 10);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'nodes', workspace: 'website', by: 'boss', changed: [], moved: [], removed: [] });
    expect(events[0]!.created.map((n) => n.path)).toEqual(['/travel/new', '/travel/new/main', '/travel/new/main/c0']);
  });

  it('maintains cms:created, cms:createdBy, cms:lastModified, cms:lastModifiedBy and ignores forged ones', async () => {
    const res = await send('PUT', '/travel', {
      name: 'stamped', type: 'mgnl:page',
      properties: [prop('mgnl:createdBy', 'String', ['mallory']), prop('cms:lastModified', 'Date', ['1999-01-01T00:00:00Z'])],
    });
    expect(res.status, res.raw).toBe(200);
    const meta = valuesOf(await read('/travel/stamped', '?includeMetadata=true'));
    expect(meta['cms:createdBy']).toEqual(['boss']);
    expect(meta['cms:lastModifiedBy']).toEqual(['boss']);
    expect(meta['cms:lastModified']![0]).not.toMatch(/^1999/);
    expect(Date.now() - Date.parse(meta['cms:created']![0]!)).toBeLessThan(60_000);
  });

  it('404 for a missing parent, 409 for a duplicate name or a UUID of another node; nothing written', async () => {
    const s = await snapshot();
    expectErrorShape(await send('PUT', '/travel/nowhere', { name: 'x' }), 404, 'pathNotFound');
    expectErrorShape(await send('PUT', '/travel', { name: 'a' }), 409, 'nodeExists');
    const uuid = await send('PUT', '/travel', { name: 'twin', identifier: '71000000-0000-4000-8000-00000000000b' });
    expectErrorShape(uuid, 409, 'identifierInUse');
    expect(uuid.body.error.message).not.toContain('/travel/b');
    // A clash deep in the body rolls back the nodes before it.
    expectErrorShape(await send('PUT', '/travel', { name: 'partial', nodes: [{ name: 'ok' }, { name: 'clash', identifier: '71000000-0000-4000-8000-00000000000c' }] }), 409, 'identifierInUse');
    expect(await snapshot()).toEqual(s);
    expect((await read('/travel/partial')).status).toBe(404);
  });
});

describe('bad bodies: 400 naming the field, nothing written', () => {
  const cases: [string, unknown, string, string][] = [
    ['not an object', [1, 2], 'badRequest', 'body'],
    ['Long that is not a number', { name: 'x', properties: [prop('n', 'Long', ['12abc'])] }, 'invalidValueFormat', 'n (properties[0].values[0])'],
    ['Double', { name: 'x', properties: [prop('s', 'String', ['ok']), prop('d', 'Double', ['x'])] }, 'invalidValueFormat', 'd (properties[1].values[0])'],
    ['Decimal', { name: 'x', properties: [prop('d', 'Decimal', ['1,5'])] }, 'invalidValueFormat', 'd (properties[0].values[0])'],
    ['Boolean', { name: 'x', properties: [prop('b', 'Boolean', ['yes'])] }, 'invalidValueFormat', 'b (properties[0].values[0])'],
    ['Date', { name: 'x', properties: [prop('d', 'Date', ['tomorrow'])] }, 'invalidValueFormat', 'd (properties[0].values[0])'],
    ['unknown type', { name: 'x', properties: [prop('p', 'Money', ['1'])] }, 'invalidField', 'p (properties[0].type)'],
    ['multiple false with several values', { name: 'x', properties: [prop('p', 'String', ['a', 'b'])] }, 'invalidField', 'p (properties[0].values)'],
    ['name with /', { name: 'a/b' }, 'invalidField', 'name'],
    ['name with [', { name: 'a[1]' }, 'invalidField', 'name'],
    ['name with *', { name: 'a*' }, 'invalidField', 'name'],
    ['name with |', { name: 'a|b' }, 'invalidField', 'name'],
    ['name with a control character', { name: 'a\u0007b' }, 'invalidField', 'name'],
    ['name .', { name: '.' }, 'invalidField', 'name'],
    ['name ..', { name: '..' }, 'invalidField', 'name'],
    ['child name', { name: 'x', nodes: [{ name: 'ok' }, { name: 'bad/name' }] }, 'invalidField', 'nodes[1].name'],
    ['nested value', { name: 'x', nodes: [{ name: 'k', properties: [prop('n', 'Long', ['z'])] }] }, 'invalidValueFormat', 'n (nodes[0].properties[0].values[0])'],
    ['duplicate child names', { name: 'x', nodes: [{ name: 'k' }, { name: 'k' }] }, 'invalidField', 'nodes[1].name'],
    ['property name with |', { name: 'x', properties: [prop('a|b', 'String', ['v'])] }, 'invalidField', 'properties[0].name'],
    ['path elsewhere', { name: 'x', path: '/elsewhere/x' }, 'invalidField', 'path'],
  ];
  it.each(cases)('%s', async (_label, body, code, field) => {
    const s = await snapshot();
    const res = await send('PUT', '/travel', body);
    expectErrorShape(res, 400, code);
    expect(res.body.error.message).toContain(field === 'body' ? 'body' : `${field}:`);
    expect(await snapshot()).toEqual(s);
  });

  it('names a property by its name and place, the whole message as an editor reads it', async () => {
    const res = await send('PUT', '/travel', { name: 'x', properties: [prop('title', 'String', ['ok']), prop('price', 'Long', ['12abc'])] });
    expectErrorShape(res, 400, 'invalidValueFormat');
    expect(res.body.error.message).toMatch(/^price \(properties\[1\]\.values\[0\]\): /);
  });

  it('bounds: too many nodes is a 413 naming the bound, nothing written', async () => {
    const s = await snapshot();
    const res = await send('PUT', '/travel', { name: 'big', nodes: Array.from({ length: 1000 }, (_, i) => ({ name: `n${i}` })) });
    expectErrorShape(res, 413, 'payloadTooLarge');
    expect(res.body.error.message).toContain('1000 nodes');
    expect(await snapshot()).toEqual(s);
  });
});

describe('POST updates a node', () => {
  it('sets and adds the properties given, keeps the others, creates and updates child nodes; one "nodes" event', async () => {
    const before = await t.store.changes.latest();
    const res = await send('POST', '/travel/a', {
      name: 'a', properties: [prop('title', 'String', ['A2']), prop('extra', 'Long', ['7'])],
      nodes: [{ name: 'deep', properties: [prop('x', 'String', ['1'])] }, { name: 'fresh', type: 'mgnl:area' }],
    });
    expect(res.status, res.raw).toBe(200);
    const got = await read('/travel/a', '?depth=1&includeMetadata=true');
    const values = valuesOf(got);
    expect(values.title).toEqual(['A2']);
    expect(values.extra).toEqual(['7']);
    expect(values['cms:lastModifiedBy']).toEqual(['boss']);
    expect(got.body.nodes.map((n: { name: string }) => n.name)).toEqual(['deep', 'fresh']);
    const events = await t.store.changes.since(before, 10);
    expect(events).toHaveLength(1);
    expect(events[0]!.changed.map((n) => n.path)).toEqual(['/travel/a', '/travel/a/deep']);
    expect(events[0]!.created.map((n) => n.path)).toEqual(['/travel/a/fresh']);
    expect((await get(t.app, '/.rest/delivery/pages/travel/a')).body.title).toBe('A2');
  });

  it('keeps cms:created and cms:createdBy of the node; a different name is a 400 (rename with moveTo)', async () => {
    await send('POST', '/travel', { name: 'travel', properties: [prop('mgnl:created', 'Date', ['2000-01-01T00:00:00Z'])] });
    const meta = valuesOf(await read('/travel', '?includeMetadata=true'));
    expect(meta['cms:created']).toEqual(['2015-05-12T11:21:08.960+02:00']);
    expect(meta['cms:createdBy']).toEqual(['importer']);
    const s = await snapshot();
    expectErrorShape(await send('POST', '/travel/b', { name: 'renamed' }), 400, 'invalidField');
    expectErrorShape(await send('POST', '/travel/nowhere', { name: 'nowhere' }), 404, 'pathNotFound');
    expect(await snapshot()).toEqual(s);
  });

  it('If-Match: the ETag of a GET matches until the node changes; a stale one is a 412 and nothing is written', async () => {
    const etag = String((await read('/travel/b', '?depth=1')).headers.etag);
    const ok = await send('POST', '/travel/b', { name: 'b', properties: [prop('title', 'String', ['B2'])] }, { 'if-match': etag });
    expect(ok.status, ok.raw).toBe(200);
    const s = await snapshot();
    const stale = await send('POST', '/travel/b', { name: 'b', properties: [prop('title', 'String', ['B3'])] }, { 'if-match': etag });
    expectErrorShape(stale, 412, 'preconditionFailed');
    expectErrorShape(await send('DELETE', '/travel/b', undefined, { 'if-match': etag }), 412, 'preconditionFailed');
    expect(await snapshot()).toEqual(s);
    // The answer's ETag is the new one.
    // (The name may be left out of a POST: it is the node's own.)
    const again = await send('POST', '/travel/b', { properties: [prop('title', 'String', ['B3'])] }, { 'if-match': String(ok.headers.etag) });
    expect(again.status, again.raw).toBe(200);
    expect(valuesOf(await read('/travel/b')).title).toEqual(['B3']);
  });
});

describe('order, move and rename', () => {
  beforeEach(async () => {
    for (const n of ['o1', 'o2', 'o3']) if ((await read(`/travel/c/${n}`)).status === 404) await send('PUT', '/travel/c', { name: n, properties: [] });
  });
  const names = async (path: string) => (await read(path, '?depth=1')).body.nodes.map((n: { name: string }) => n.name);

  it('orderBefore moves a node before a sibling; the event lists the siblings whose place changed as moved in place', async () => {
    expect(await names('/travel/c')).toEqual(['o1', 'o2', 'o3']);
    const before = await t.store.changes.latest();
    const res = await send('POST', '/travel/c/o3?orderBefore=o1');
    expect(res.status, res.raw).toBe(200);
    expect(await names('/travel/c')).toEqual(['o3', 'o1', 'o2']);
    const [event] = await t.store.changes.since(before, 10);
    expect(event!.moved.find((n) => n.path === '/travel/c/o3')).toMatchObject({ from: '/travel/c/o3' });
    for (const m of event!.moved) expect(m.from).toBe(m.path);
    expectErrorShape(await send('POST', '/travel/c/o3?orderBefore=none'), 400, 'invalidField');
  });

  it('moveTo renames and moves a subtree; every node of it is `moved` with `from`; the old path is gone', async () => {
    await send('PUT', '/travel/c/o1', { name: 'kid', nodes: [{ name: 'grand' }] });
    const before = await t.store.changes.latest();
    const res = await send('POST', '/travel/c/o1?moveTo=/travel/a/o1-renamed');
    expect(res.status, res.raw).toBe(200);
    expect(res.body.path).toBe('/travel/a/o1-renamed');
    expect((await read('/travel/c/o1')).status).toBe(404);
    expect((await read('/travel/a/o1-renamed/kid/grand')).status).toBe(200);
    expect((await names('/travel/a')).at(-1)).toBe('o1-renamed');
    const [event] = await t.store.changes.since(before, 10);
    expect(event!.moved.map((n) => [n.from, n.path]).sort()).toEqual([
      ['/travel/c/o1', '/travel/a/o1-renamed'], ['/travel/c/o1/kid', '/travel/a/o1-renamed/kid'], ['/travel/c/o1/kid/grand', '/travel/a/o1-renamed/kid/grand'],
    ]);
    // Into a sibling's place with orderBefore, in one request.
    const back = await send('POST', '/travel/a/o1-renamed?moveTo=/travel/c/o1&orderBefore=o2');
    expect(back.status, back.raw).toBe(200);
    expect(await names('/travel/c')).toEqual(['o3', 'o1', 'o2']);
    const s = await snapshot();
    expectErrorShape(await send('POST', '/travel/c/o1?moveTo=/travel/c/o2'), 409, 'nodeExists');
    expectErrorShape(await send('POST', '/travel/c/o1?moveTo=/travel/c/o1/kid/x'), 400, 'invalidField');
    expectErrorShape(await send('POST', '/travel/c/o1?moveTo=/nowhere/o1'), 404, 'pathNotFound');
    expectErrorShape(await send('POST', '/travel/c/o1?moveTo=/travel/a*b'), 400, 'invalidField');
    expect(await snapshot()).toEqual(s);
  });
});

describe('DELETE removes a node and its subtree', () => {
  it('lists every removed node in the event; GET and delivery answer 404 next', async () => {
    await send('PUT', '/travel', { name: 'doomed', nodes: [{ name: 'x', nodes: [{ name: 'y' }] }] });
    expect((await get(t.app, '/.rest/delivery/pages/travel/doomed')).status).toBe(200);
    const res = await send('DELETE', '/travel/doomed');
    expect(res.status, res.raw).toBe(200);
    expect((await read('/travel/doomed')).status).toBe(404);
    expect((await get(t.app, '/.rest/delivery/pages/travel/doomed')).status).toBe(404);
    const event = await lastEvent();
    expect(event).toMatchObject({ kind: 'nodes', by: 'boss', created: [], changed: [], moved: [] });
    expect(event.removed.map((n) => n.path).sort()).toEqual(['/travel/doomed', '/travel/doomed/x', '/travel/doomed/x/y']);
    expectErrorShape(await send('DELETE', '/travel/doomed'), 404, 'pathNotFound');
  });
});
