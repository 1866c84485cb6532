// Security layer tests: workspace ACL precedence (Magnolia's documented example and tie rule), node
// versus descendant patterns, the `*` workspace, the readsAll/readsNothing shortcuts and the cache.
import { describe, expect, it } from 'vitest';
import { compileAcl, decideAcl, subtreeWritable, type AclRule } from '../../src/security/workspace-acl.js';

/** "Selected and sub nodes" in 6.3 style: the node row plus the descendants row. */
function both(path: string, permission: AclRule['permission']): AclRule[] {
  return [{ path, permission }, { path: `${path}/*`, permission }];
}

describe('compileAcl: the Magnolia documentation example', () => {
  const access = compileAcl({
    website: [
      ...both('/siteA', 'read'),
      ...both('/siteA/news', 'read'),
      ...both('/siteA/news/sports', 'readWrite'),
      ...both('/siteA/news/sports/NHL', 'deny'),
    ],
  });

  it('reads siteA and news, writes sports, hides NHL', () => {
    expect(access.permissionAt('website', '/siteA')).toBe('read');
    expect(access.permissionAt('website', '/siteA/about')).toBe('read');
    expect(access.permissionAt('website', '/siteA/news')).toBe('read');
    expect(access.permissionAt('website', '/siteA/news/world')).toBe('read');
    expect(access.permissionAt('website', '/siteA/news/sports')).toBe('readWrite');
    expect(access.permissionAt('website', '/siteA/news/sports/NBA/game1')).toBe('readWrite');
    expect(access.canRead('website', '/siteA/news/sports')).toBe(true);
    expect(access.canRead('website', '/siteA/news/sports/NHL')).toBe(false);
    expect(access.canRead('website', '/siteA/news/sports/NHL/game1')).toBe(false);
    expect(access.canRead('website', '/siteA/news/sports/NHLx')).toBe(true); // sibling, not a child
  });

  it('grants nothing outside the rules', () => {
    expect(access.canRead('website', '/')).toBe(false);
    expect(access.canRead('website', '/siteB')).toBe(false);
    expect(access.canRead('website', '/siteAB')).toBe(false);
    expect(access.canRead('dam', '/siteA')).toBe(false);
  });
});

describe('compileAcl: patterns', () => {
  it('/path is the node only, /path/* the descendants only', () => {
    const nodeOnly = compileAcl({ website: [{ path: '/site', permission: 'read' }] });
    expect(nodeOnly.canRead('website', '/site')).toBe(true);
    expect(nodeOnly.canRead('website', '/site/child')).toBe(false);

    const subOnly = compileAcl({ website: [{ path: '/site/*', permission: 'read' }] });
    expect(subOnly.canRead('website', '/site')).toBe(false);
    expect(subOnly.canRead('website', '/site/child')).toBe(true);
    expect(subOnly.canRead('website', '/site/child/grandchild')).toBe(true);
    expect(subOnly.canRead('website', '/siteX')).toBe(false);
  });

  it('/ is the root only, /* and * every node', () => {
    const root = compileAcl({ w: [{ path: '/', permission: 'read' }] });
    expect(root.canRead('w', '/')).toBe(true);
    expect(root.canRead('w', '/a')).toBe(false);
    for (const p of ['/*', '*']) {
      const all = compileAcl({ w: [{ path: p, permission: 'read' }] });
      expect(all.canRead('w', '/')).toBe(true);
      expect(all.canRead('w', '/a/b/c')).toBe(true);
    }
  });

  it('applies * inside patterns as a glob', () => {
    const access = compileAcl({ w: [{ path: '/*', permission: 'read' }, { path: '/*/secret*', permission: 'deny' }] });
    expect(access.canRead('w', '/a/public')).toBe(true);
    expect(access.canRead('w', '/a/secret')).toBe(false);
    expect(access.canRead('w', '/a/b/secret/x')).toBe(false);
    expect(access.canRead('w', '/secret')).toBe(true); // needs a segment before it
  });

  it('narrows an open workspace with a deeper deny (checklist §C.20)', () => {
    const access = compileAcl({ w: [{ path: '/a/*', permission: 'read' }, { path: '/a/b/*', permission: 'deny' }] });
    expect(access.canRead('w', '/a/x')).toBe(true);
    expect(access.canRead('w', '/a/b')).toBe(true); // the node itself: only its descendants are denied
    expect(access.canRead('w', '/a/b/y')).toBe(false);
  });
});

describe('compileAcl: merging roles and workspaces', () => {
  it('merges the * workspace with the specific one under the same precedence', () => {
    const access = compileAcl({
      '*': [{ path: '/*', permission: 'read' }],
      website: [{ path: '/secret', permission: 'deny' }, { path: '/secret/*', permission: 'deny' }],
    });
    expect(access.canRead('website', '/travel')).toBe(true);
    expect(access.canRead('website', '/secret')).toBe(false);
    expect(access.canRead('website', '/secret/doc')).toBe(false);
    expect(access.canRead('dam', '/secret/doc')).toBe(true); // only website narrows it
  });

  it('lets a longer * workspace rule beat a shorter specific rule', () => {
    const access = compileAcl({
      '*': [{ path: '/private/*', permission: 'deny' }],
      website: [{ path: '/*', permission: 'readWrite' }],
    });
    expect(access.canRead('website', '/private/x')).toBe(false);
    expect(access.permissionAt('website', '/public')).toBe('readWrite');
  });

  it('breaks a tie between one role\'s deny and another\'s read in favour of read', () => {
    const roleX: AclRule[] = [{ path: '/a/*', permission: 'deny' }];
    const roleY: AclRule[] = [{ path: '/a/*', permission: 'read' }];
    for (const rules of [[...roleX, ...roleY], [...roleY, ...roleX]]) {
      expect(compileAcl({ w: rules }).canRead('w', '/a/b')).toBe(true);
    }
    // Also across the * workspace and the specific one.
    expect(compileAcl({ '*': roleX, w: roleY }).canRead('w', '/a/b')).toBe(true);
    expect(compileAcl({ '*': roleY, w: roleX }).canRead('w', '/a/b')).toBe(true);
    // readWrite beats read on a tie.
    expect(compileAcl({ w: [{ path: '/a', permission: 'read' }, { path: '/a', permission: 'readWrite' }] })
      .permissionAt('w', '/a')).toBe('readWrite');
  });

  it('does not confuse workspace names with Object.prototype members', () => {
    const access = compileAcl({ w: [{ path: '/*', permission: 'read' }] });
    for (const ws of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(access.canRead(ws, '/a')).toBe(false);
      expect(access.readsNothing(ws)).toBe(true);
      expect(access.rulesFor(ws)).toEqual([]);
    }
  });

  it('rejects an unknown permission at compile time', () => {
    const bad = { w: [{ path: '/a', permission: 'write' }] } as unknown as Record<string, AclRule[]>;
    expect(() => compileAcl(bad)).toThrow(TypeError);
  });
});

describe('compileAcl: readsAll / readsNothing', () => {
  it('readsAll only for broad read rules covering every path', () => {
    const cases: Array<[Record<string, AclRule[]>, boolean]> = [
      [{ w: [{ path: '/*', permission: 'read' }] }, true],
      [{ w: [{ path: '*', permission: 'readWrite' }] }, true],
      [{ w: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] }, true],
      [{ '*': [{ path: '/*', permission: 'read' }] }, true],
      [{ '*': [{ path: '/', permission: 'read' }], w: [{ path: '/*', permission: 'read' }] }, true],
      [{ w: [{ path: '/', permission: 'read' }] }, false], // root only
      [{ w: [{ path: '/*', permission: 'read' }, { path: '/secret', permission: 'deny' }] }, false],
      [{ w: [{ path: '/*', permission: 'read' }, { path: '/', permission: 'deny' }] }, false], // conservative
      [{ w: [{ path: '/*', permission: 'read' }, { path: '/a/*', permission: 'read' }] }, false], // conservative
      [{ '*': [{ path: '/*', permission: 'read' }], w: [{ path: '/x/*', permission: 'deny' }] }, false],
      [{ w: [] }, false],
      [{}, false],
    ];
    for (const [rules, expected] of cases) expect(compileAcl(rules).readsAll('w'), JSON.stringify(rules)).toBe(expected);
  });

  it('readsNothing when no rule grants read', () => {
    expect(compileAcl({}).readsNothing('w')).toBe(true);
    expect(compileAcl({ w: [{ path: '/*', permission: 'deny' }] }).readsNothing('w')).toBe(true);
    expect(compileAcl({ other: [{ path: '/*', permission: 'read' }] }).readsNothing('w')).toBe(true);
    expect(compileAcl({ w: [{ path: '/a', permission: 'read' }] }).readsNothing('w')).toBe(false);
    expect(compileAcl({ '*': [{ path: '/a/*', permission: 'readWrite' }] }).readsNothing('w')).toBe(false);
  });
});

describe('compileAcl: rulesFor', () => {
  it('sorts by length desc then permission desc, and decideAcl agrees with canRead', () => {
    const access = compileAcl({
      '*': [{ path: '/a/*', permission: 'deny' }],
      w: [
        { path: '/*', permission: 'read' },
        { path: '/a/*', permission: 'read' },
        { path: '/a/b', permission: 'deny' },
        { path: '/a/b/*', permission: 'readWrite' },
      ],
    });
    const rules = access.rulesFor('w');
    expect(rules.map((r) => `${r.permission} ${r.path}`)).toEqual([
      'readWrite /a/b/*',
      'read /a/*',
      'deny /a/b',
      'deny /a/*',
      'read /*',
    ]);
    expect(rules.map((r) => [r.kind, r.literal])).toEqual([
      ['prefix', '/a/b/'], ['prefix', '/a/'], ['exact', '/a/b'], ['prefix', '/a/'], ['prefix', '/'],
    ]);
    for (const path of ['/', '/x', '/a', '/a/x', '/a/b', '/a/b/c', '/a/bc']) {
      expect(decideAcl(rules, path) !== 'deny', path).toBe(access.canRead('w', path));
    }
    // Magnolia semantics: `Read /a/*` and `Deny /a/b` both match /a/b with length 4, so read wins.
    expect(access.canRead('w', '/a/b')).toBe(true);
    expect(access.canRead('w', '/a/bc')).toBe(true);
  });
});

describe('compileAcl: decision cache', () => {
  it('stays correct when the bounded cache evicts entries', () => {
    const rules = { w: [{ path: '/*', permission: 'read' as const }, { path: '/s*', permission: 'deny' as const }] };
    const small = compileAcl(rules, { cacheBytes: 3 * 200 });
    const expected = (p: string) => !p.startsWith('/s');
    const paths = Array.from({ length: 50 }, (_, i) => (i % 3 === 0 ? `/s${i}` : `/p${i}`));
    for (let round = 0; round < 3; round++) {
      for (const p of paths) expect(small.canRead('w', p), p).toBe(expected(p));
      for (const p of [...paths].reverse()) expect(small.canRead('w', p), p).toBe(expected(p));
    }
  });

  it('keeps decisions of different workspaces apart', () => {
    const access = compileAcl({ a: [{ path: '/*', permission: 'read' }], b: [{ path: '/*', permission: 'deny' }] });
    for (let i = 0; i < 3; i++) {
      expect(access.canRead('a', '/x')).toBe(true);
      expect(access.canRead('b', '/x')).toBe(false);
      expect(access.canRead('c', '/x')).toBe(false);
    }
  });

  it('is not affected by mutating the input after compiling', () => {
    const w: AclRule[] = [{ path: '/*', permission: 'read' }];
    const input: Record<string, AclRule[]> = { w, '*': [] };
    const access = compileAcl(input);
    w.push({ path: '/a/x', permission: 'deny' });
    input['*']!.push({ path: '/b/x', permission: 'deny' });
    input['v'] = [{ path: '/*', permission: 'read' }];
    expect(access.canRead('w', '/a/x')).toBe(true);
    expect(access.canRead('w', '/b/x')).toBe(true);
    expect(access.canRead('v', '/a')).toBe(false);
    expect(compileAcl(input).canRead('w', '/a/x')).toBe(false);
    expect(compileAcl(input).canRead('w', '/b/x')).toBe(false);
  });
});

describe('subtreeWritable (imports, later deletes and moves)', () => {
  const acl = (rules: AclRule[]) => compileAcl({ website: rules });
  const rw = (path: string): AclRule => ({ path, permission: 'readWrite' });

  it('needs readWrite on the node and a readWrite rule covering every descendant', () => {
    expect(subtreeWritable(acl([rw('/*')]), 'website', '/a')).toBe(true);
    expect(subtreeWritable(acl([rw('/a'), rw('/a/*')]), 'website', '/a')).toBe(true);
    expect(subtreeWritable(acl([rw('/a')]), 'website', '/a'), 'descendants match nothing: deny').toBe(false);
    expect(subtreeWritable(acl([{ path: '/a', permission: 'read' }, rw('/a/*')]), 'website', '/a')).toBe(false);
    expect(subtreeWritable(acl([rw('/*')]), 'other', '/a'), 'no rules in that workspace').toBe(false);
  });

  it('refuses when a longer rule can deny or only read somewhere below, whatever exists there', () => {
    expect(subtreeWritable(acl([rw('/*'), { path: '/a/b/c', permission: 'deny' }]), 'website', '/a')).toBe(false);
    expect(subtreeWritable(acl([rw('/*'), { path: '/a/b/*', permission: 'read' }]), 'website', '/a')).toBe(false);
    expect(subtreeWritable(acl([rw('/*'), { path: '/a/*/x', permission: 'deny' }]), 'website', '/a'), 'a glob may match below').toBe(false);
    // Rules that cannot match below the node do not matter.
    expect(subtreeWritable(acl([rw('/*'), { path: '/ab', permission: 'deny' }, { path: '/b/*', permission: 'deny' }]), 'website', '/a')).toBe(true);
    expect(subtreeWritable(acl([rw('/*'), { path: '/a', permission: 'readWrite' }, { path: '/', permission: 'deny' }]), 'website', '/a')).toBe(true);
  });

  it('lets a readWrite rule of higher precedence shadow a broader deny', () => {
    expect(subtreeWritable(acl([{ path: '/*', permission: 'deny' }, rw('/a/b'), rw('/a/b/*')]), 'website', '/a/b')).toBe(true);
    expect(subtreeWritable(acl([{ path: '/a/*', permission: 'deny' }, rw('/a/b'), rw('/a/b/*')]), 'website', '/a/b')).toBe(true);
    expect(subtreeWritable(acl([rw('/a/b'), rw('/a/b/*'), { path: '/a/b/c*', permission: 'deny' }]), 'website', '/a/b'), 'longer wins').toBe(false);
  });
});
