// The variant-free view of a session pages children without variants: no variants container among a
// page, and nothing from inside one, as for its other reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeTypeRegistry } from '../../../src/repository/node-types.js';
import { Repository } from '../../../src/repository/session.js';
import { SqliteStore } from '../../../src/store/sqlite/store.js';
import { variantFreeSession } from '../../../src/delivery/pages/variant-free-session.js';
import { VARIANTS_CONTAINER_TYPE } from '../../../src/delivery/pages/personalization.js';
import { NEW, document, draft, leaves } from '../../conformance/drafts.js';
import { importDocuments } from '../../../src/repository/writes.js';

let dir: string;
let store: SqliteStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-variant-pages-'));
  store = new SqliteStore({ file: join(dir, 'petal.db') });
  await store.open();
  await importDocuments(store, [document('website', '/', [
    draft('page', {}, [draft('text'), draft('variants', { type: VARIANTS_CONTAINER_TYPE }, leaves('v1', 'v2')), draft('image')]),
  ])], NEW);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('variantFreeSession.getChildrenPages', () => {
  it('leaves out variants containers and the children of one', async () => {
    const session = variantFreeSession(new Repository(store, new NodeTypeRegistry()).systemSession());
    const pages = await session.getChildrenPages('website', [{ parentPath: '/page' }, { parentPath: '/page/variants' }], 10);
    expect(pages.map((p) => [p.parentPath, p.nodes.map((n) => n.name), p.next])).toEqual([
      ['/page', ['text', 'image'], undefined], ['/page/variants', [], undefined],
    ]);
  });
});
