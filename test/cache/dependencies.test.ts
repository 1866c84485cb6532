// Dependency keys on their own: what an answer records, what a change event hits (paths, ids, parent
// child lists, moves from both places, the workspace), the bound per answer, and the response cache's
// use of them: an index from keys to entries, and no entry stored across a change that hit it.
import { describe, expect, it } from 'vitest';
import { changeKeys, childrenKey, Dependencies, idKey, MAX_DEPENDENCY_KEYS, nodeKey, touchedKey, workspaceKey } from '../../src/repository/dependencies.js';
import type { ChangeEvent, ChangedNode } from '../../src/store/changes.js';
import { ResponseCache, type CachedResponse } from '../../src/http/response-cache.js';

function event(o: Partial<Record<'created' | 'changed' | 'moved' | 'removed', ChangedNode[]>> & { truncated?: boolean; workspace?: string }): ChangeEvent {
  return {
    sequence: 1, workspace: o.workspace ?? 'website', at: '2026-01-01T00:00:00.000Z', kind: 'import',
    created: o.created ?? [], changed: o.changed ?? [], moved: o.moved ?? [], removed: o.removed ?? [],
    truncated: o.truncated ?? false, count: 1,
  };
}
const n = (path: string, id = `id-${path}`, from?: string): ChangedNode => ({ id, path, type: 'cms:page', ...(from ? { from } : {}) });

describe('Dependencies', () => {
  it('records nodes, ids, child lists above the depth limit, and the workspaces it read', () => {
    const d = new Dependencies();
    d.node('website', '/a');
    d.id('dam', 'x');
    d.subtree('website', '/a', 1, [{ path: '/a' }, { path: '/a/b' }]);
    const keys = new Set(d.keys());
    expect(keys).toEqual(new Set([
      touchedKey('website'), touchedKey('dam'), nodeKey('website', '/a'), idKey('dam', 'x'),
      childrenKey('website', '/a'), nodeKey('website', '/a/b'),
    ])); // /a/b is at the depth limit: its children were not read
  });

  it('descendants of several roots: each row against its nearest root', () => {
    const d = new Dependencies();
    d.descendants('website', ['/a', '/x/y'], 1, [{ path: '/a/b' }, { path: '/x/y/z' }]);
    const keys = new Set(d.keys());
    expect(keys.has(childrenKey('website', '/a'))).toBe(true);
    expect(keys.has(childrenKey('website', '/x/y'))).toBe(true);
    expect(keys.has(childrenKey('website', '/a/b'))).toBe(false);
    expect(keys.has(nodeKey('website', '/x/y/z'))).toBe(true);
  });

  it(`past ${MAX_DEPENDENCY_KEYS} keys keeps only the workspaces (any change of them hits)`, () => {
    const d = new Dependencies();
    for (let i = 0; i <= MAX_DEPENDENCY_KEYS; i++) d.node('website', `/p${i}`);
    expect(new Set(d.keys())).toEqual(new Set([touchedKey('website'), workspaceKey('website')]));
  });
});

describe('changeKeys', () => {
  it('hits the path, the id and the parent child list of each node, both places of a move, and the workspace', () => {
    const keys = changeKeys(event({ changed: [n('/a/b', 'B')], moved: [n('/c/d', 'D', '/e/f')] }));
    for (const k of [nodeKey('website', '/a/b'), idKey('website', 'B'), childrenKey('website', '/a'), nodeKey('website', '/c/d'),
      nodeKey('website', '/e/f'), childrenKey('website', '/c'), childrenKey('website', '/e'), workspaceKey('website')]) {
      expect(keys.has(k)).toBe(true);
    }
    expect(keys.has(touchedKey('website'))).toBe(false);
    expect(keys.has(nodeKey('dam', '/a/b'))).toBe(false);
  });

  it('a truncated event hits everything that read its workspace', () => {
    expect(changeKeys(event({ truncated: true, workspace: 'dam' }))).toEqual(new Set([workspaceKey('dam'), touchedKey('dam')]));
  });
});

const OWNER = {};
const answer = (): CachedResponse => ({ body: Buffer.from('{}'), etag: '"x"', contentLanguage: 'en', cacheControl: undefined, vary: '', owner: OWNER, headers: {} });

describe('ResponseCache and changes', () => {
  it('drops the entries holding a key the change hits, keeps the others', () => {
    const cache = new ResponseCache({ maxBytes: 1_000_000 });
    const epoch = cache.observe('s', 'site');
    cache.set('a', answer(), epoch, [touchedKey('website'), nodeKey('website', '/a')]);
    cache.set('b', answer(), epoch, [touchedKey('website'), nodeKey('website', '/b')]);
    cache.apply({ kind: 'events', events: [event({ changed: [n('/a')] })] });
    expect(cache.has('a')).toBe(false);
    expect(cache.has('b')).toBe(true);
    expect(cache.stats().dropped).toBe(1);
    cache.apply({ kind: 'reset' });
    expect(cache.has('b')).toBe(false);
  });

  it('never stores an answer rendered across a change that hit it; does store one the change missed', () => {
    const cache = new ResponseCache({ maxBytes: 1_000_000 });
    const epoch = cache.observe('s', 'site');
    cache.apply({ kind: 'events', events: [event({ changed: [n('/a')] })] }); // while both rendered
    expect(cache.set('a', answer(), epoch, [nodeKey('website', '/a')])).toBe(false);
    expect(cache.set('b', answer(), epoch, [nodeKey('website', '/b')])).toBe(true);
    // Too many changes since the render to remember what they hit: refused.
    const old = cache.observe('s', 'site');
    for (let i = 0; i < 100; i++) cache.apply({ kind: 'events', events: [event({ changed: [n(`/z${i}`)] })] });
    expect(cache.set('c', answer(), old, [nodeKey('website', '/c')])).toBe(false);
  });
});
