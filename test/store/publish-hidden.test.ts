// Issue 28 point 3, store side (each backend; PostgreSQL with PETAL_TEST_PG): a publish under a
// caller's workspace rules never removes published content the caller may not see, and refuses by
// the rules alone, naming only nodes the caller can read, whether hidden nodes exist or not.
import { describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import { NodeWriteError, type NodeWriteGuard } from '../../src/repository/node-write.js';
import { compileAcl, subtreeWritable, type AclRule } from '../../src/security/workspace-acl.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { BACKENDS, openForSuite } from './publish-backends.js';
import { COMPONENT, PAGE, pathsIn, request, seedSite } from './publish-site.js';
import { importDocuments, publishState, writeNodes } from '../../src/repository/writes.js';

/** The guard SecurityService.writeAccess gives a caller with these rules in every workspace. */
function guardOf(...rules: [string, AclRule['permission']][]): NodeWriteGuard {
  const acl = compileAcl({ '*': rules.map(([path, permission]) => ({ path, permission })) });
  return {
    canRead: (ws, path) => acl.canRead(ws, path),
    mayWrite: (ws, path) => acl.permissionAt(ws, path) === 'readWrite',
    mayReplaceSubtree: (ws, path) => subtreeWritable(acl, ws, path),
  };
}

async function refusal(promise: Promise<unknown>): Promise<{ reason: string; message: string }> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(NodeWriteError);
  return { reason: (err as NodeWriteError).reason, message: (err as NodeWriteError).message };
}

for (const backend of BACKENDS) {
  // Skipped for PostgreSQL when PETAL_TEST_PG is not set (backend.skip says so); CI sets it.
  describe.skipIf(backend.skip !== false)(`publishing beside hidden content (${backend.name})`, () => {
    let store: ContentStore;
    openForSuite(backend, (s) => { store = s; });

    it('refuses content taken along that may hold hidden nodes, by the rules: the same refusal with or without them', async () => {
      const guard = guardOf(['/home', 'readWrite'], ['/home/*', 'readWrite'], ['/home/main/private', 'deny']);
      const answers: unknown[] = [];
      for (const withHidden of [false, true]) {
        const { ws, pub } = await seedSite(store, `taken-${withHidden}`);
        if (withHidden) await writeNodes(store, ws, [{ op: 'create', parentPath: '/home/main', node: { name: 'private', type: COMPONENT, properties: [], children: [], field: '' } }], { by: 'boss' });
        const r = await refusal(publishState(store, request(ws, '/home', { guard })));
        answers.push({ ...r, message: r.message.replace(ws, 'WS') });
        expect(await pathsIn(store, pub)).toEqual([]);
      }
      expect(answers).toEqual([
        { reason: 'denied', message: 'You may not publish or unpublish WS:/home/main' },
        { reason: 'denied', message: 'You may not publish or unpublish WS:/home/main' },
      ]);
    });

    it('refuses to remove the old published copy of a moved node from where the caller may not write, never naming that place', async () => {
      const { ws, pub } = await seedSite(store, 'moved-hidden');
      await publishState(store, request(ws, '/home', { recursive: true }));
      await writeNodes(store, ws, [{ op: 'move', path: '/home/about', to: '/about' }], { by: 'boss' });
      const guard = guardOf(['/about', 'readWrite'], ['/about/*', 'readWrite']);
      const r = await refusal(publishState(store, request(ws, '/about', { guard })));
      expect(r).toEqual({ reason: 'denied', message: `You may not publish or unpublish ${ws}:/about` });
      expect(await pathsIn(store, pub)).toEqual(['/home', '/home/about', '/home/about/main', '/home/main', '/home/main/teaser']);
      // Who may write the old place too moves the published copy along.
      const both = guardOf(['/about', 'readWrite'], ['/about/*', 'readWrite'], ['/home/about', 'readWrite'], ['/home/about/*', 'readWrite']);
      await publishState(store, request(ws, '/about', { guard: both }));
      expect(await pathsIn(store, pub)).toEqual(['/about', '/about/main', '/home', '/home/main', '/home/main/teaser']);
    });

    it('refuses to replace a published node of another id whose published subtree may hold what the caller cannot see', async () => {
      const { ws, pub } = await seedSite(store, 'recreated');
      await publishState(store, request(ws, '/home', { recursive: true }));
      // /home deleted and created again in the working state: a new id, so its published subtree goes.
      await writeNodes(store, ws, [{ op: 'delete', path: '/home' }], { by: 'boss' });
      await importDocuments(store, [document(ws, '/', [draft('home', { type: PAGE })])], NEW);
      const guard = guardOf(['/home', 'readWrite'], ['/home/main', 'readWrite'], ['/home/main/*', 'readWrite']);
      const r = await refusal(publishState(store, request(ws, '/home', { guard })));
      expect(r).toEqual({ reason: 'denied', message: `You may not publish or unpublish ${ws}:/home` });
      expect(await pathsIn(store, pub)).toEqual(['/home', '/home/about', '/home/about/main', '/home/main', '/home/main/teaser']);
    });
  });
}
