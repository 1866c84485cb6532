// Sessions page children under the caller's rules: hidden children are left out, a hidden parent reads as
// missing, and the cursor comes from what the store read, so a page emptied by the rules does not end a walk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { Repository, type ReadAccess, type Session } from '../../src/repository/session.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ChildCursor } from '../../src/store/child-pages.js';
import { NEW, document, draft, leaves } from '../conformance/drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

/** Denies every path below `/site` whose last name starts with `secret`, and the `/vault` subtree. */
const access: ReadAccess = {
  rulesFor: () => [{ pattern: '/*', read: true }],
  canRead: (_ws, path) => !/\/secret[^/]*$/.test(path) && path !== '/vault' && !path.startsWith('/vault/'),
};

/** The first 6 children are hidden, so a page of 3 comes back empty twice before anything shows. */
const NAMES = [...Array.from({ length: 6 }, (_, i) => `secret${i}`), 'a', 'secret-x', 'b', 'c'];

let dir: string;
let store: SqliteStore;
let repo: Repository;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-repo-pages-'));
  store = new SqliteStore({ file: join(dir, 'petal.db') });
  await store.open();
  await importDocuments(store, [document('website', '/', [
    draft('site', {}, leaves(...NAMES)),
    draft('vault', {}, leaves('gold', 'silver')),
  ])], NEW);
  repo = new Repository(store, new NodeTypeRegistry());
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function walk(session: Session, parent: string, limit: number): Promise<{ names: string[]; pages: number[] }> {
  const names: string[] = [];
  const pages: number[] = [];
  let after: ChildCursor | undefined;
  for (;;) {
    const [page] = await session.getChildrenPages('website', [after === undefined ? { parentPath: parent } : { parentPath: parent, after }], limit);
    names.push(...page!.nodes.map((n) => n.name));
    pages.push(page!.nodes.length);
    if (page!.next === undefined) return { names, pages };
    after = page!.next;
  }
}

describe('Session.getChildrenPages', () => {
  it('skips children the caller may not read and follows the cursor past pages the rules emptied', async () => {
    const seen = await walk(repo.session(access), '/site', 3);
    expect(seen.names).toEqual(['a', 'b', 'c']);
    expect(seen.pages).toEqual([0, 0, 2, 1]);
    expect((await walk(repo.systemSession(), '/site', 3)).names).toEqual(NAMES);
  });

  it('a parent the caller may not read has no children, as a missing one, and takes no read', async () => {
    const pages = await repo.session(access).getChildrenPages('website', [{ parentPath: '/vault' }, { parentPath: '/site' }, { parentPath: '/nope' }], 2);
    expect(pages.map((p) => [p.parentPath, p.nodes.map((n) => n.name), p.next])).toEqual([
      ['/vault', [], undefined], ['/site', [], { position: 1, name: 'secret1' }], ['/nope', [], undefined],
    ]);
    expect((await walk(repo.systemSession(), '/vault', 2)).names).toEqual(['gold', 'silver']);
    expect((await walk(repo.session(access), '/', 10)).names).toEqual(['site']);
  });
});
