// Sessions and versions: a version is reached through its live node, so a caller who may not read
// the node (or a node that is gone) gets nothing about its versions: no list, no copy, no "no such
// version"; the copy itself is filtered by the caller's current rules.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { Repository, type ReadAccess } from '../../src/repository/session.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { importDocuments, publishVersion } from '../../src/repository/writes.js';

/** Reads everything in `website` except what lies under one of `denied`. */
function accessDenying(...denied: string[]): ReadAccess {
  const hidden = (path: string) => denied.some((d) => path === d || path.startsWith(`${d}/`));
  return {
    rulesFor: () => [{ pattern: '/*', read: true }, ...denied.flatMap((d) => [{ pattern: d, read: false }, { pattern: `${d}/*`, read: false }])],
    canRead: (_ws, path) => !hidden(path),
  };
}

let dir: string;
let store: SqliteStore;
let repo: Repository;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-repo-versions-'));
  store = new SqliteStore({ file: join(dir, 'petal.db') });
  await store.open();
  await importDocuments(store, [document('website', '/', [
    draft('site', {}, [draft('open', {}, [draft('inner')]), draft('secret', {}, [draft('inner')]), draft('gone')]),
  ])], NEW);
  for (const p of ['/site', '/site/secret', '/site/gone']) await publishVersion(store, 'website', p, 'alice');
  await importDocuments(store, [document('website', '/', [draft('site', {}, [draft('open', {}, [draft('inner')]), draft('secret')])])], NEW);
  repo = new Repository(store, new NodeTypeRegistry());
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Session.listVersions', () => {
  it('lists the versions of a readable node', async () => {
    const list = await repo.session(accessDenying('/site/secret')).listVersions('website', '/site');
    expect(list?.map((v) => [v.name, v.createdBy])).toEqual([['1.0', 'alice']]);
  });

  it('is undefined for a node the caller may not read, as for a missing one', async () => {
    const session = repo.session(accessDenying('/site/secret'));
    expect(await session.listVersions('website', '/site/secret')).toBeUndefined();
    expect(await session.listVersions('website', '/site/nothing')).toBeUndefined();
    expect(await repo.systemSession().listVersions('website', '/site/secret')).toHaveLength(1);
  });

  it('is undefined for a node that no longer exists, even for the system session', async () => {
    expect(await repo.systemSession().listVersions('website', '/site/gone')).toBeUndefined();
    expect(await store.versions.list('website', '/site/gone')).toHaveLength(1); // still stored
  });

  it('is reachable again once a node is imported at that path', async () => {
    await importDocuments(store, [document('website', '/site', [draft('back')])], NEW);
    expect(await repo.systemSession().listVersions('website', '/site/back')).toEqual([]);
    await importDocuments(store, [document('website', '/site', [draft('gone')])], NEW);
    expect((await repo.systemSession().listVersions('website', '/site/gone'))?.map((v) => v.name)).toEqual(['1.0']);
    const r = await repo.systemSession().readVersion('website', '/site/gone', '1.0', 1);
    expect(r.kind).toBe('found');
    await importDocuments(store, [document('website', '/', [draft('site', {}, [draft('open', {}, [draft('inner')]), draft('secret')])])], NEW);
  });
});

describe('Session.readVersion', () => {
  it('reads as noNode for an unreadable, missing or deleted node, whatever the version', async () => {
    const session = repo.session(accessDenying('/site/secret'));
    for (const [path, name] of [['/site/secret', '1.0'], ['/site/secret', '9.9'], ['/site/nothing', '1.0'], ['/site/gone', '1.0'], ['/', '1.0']] as const) {
      expect(await session.readVersion('website', path, name, 5), `${path} ${name}`).toEqual({ kind: 'noNode' });
    }
  });

  it('tells noVersion only about a readable node', async () => {
    const r = await repo.session(accessDenying('/site/secret')).readVersion('website', '/site', '1.1', 5);
    expect(r.kind).toBe('noVersion');
  });

  it('filters the copy by the caller\'s current rules', async () => {
    const r = await repo.session(accessDenying('/site/secret', '/site/open/inner')).readVersion('website', '/site', '1.0', 5);
    expect(r.kind === 'found' && r.rows.map((x) => x.path)).toEqual(['/site', '/site/open', '/site/gone']);
    const all = await repo.systemSession().readVersion('website', '/site', '1.0', 5);
    expect(all.kind === 'found' && all.rows.map((x) => x.path))
      .toEqual(['/site', '/site/open', '/site/secret', '/site/gone', '/site/open/inner', '/site/secret/inner']);
  });
});
