// Test helper for the publishing suites: a small site (a page with an area and a component, and a
// subpage with its own area), the request the suites send, and property lookups.
import type { StoredProperty } from '../../src/model/property-type.js';
import type { ContentStore } from '../../src/store/content-store.js';
import { publishedWorkspace } from '../../src/model/workspaces.js';
import { type StateRequest } from '../../src/repository/publishing.js';
import type { NodeRecord } from '../../src/store/rows.js';
import { NEW, document, draft, freshWorkspace, uuid } from '../conformance/drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

export const PAGE = 'cms:page';
export const AREA = 'cms:area';
export const COMPONENT = 'cms:component';
export const takenAlong = (type: string): boolean => type === AREA || type === COMPONENT;

export const NOW = '2025-03-04T05:06:07.089+00:00';
export const MODIFIED: StoredProperty = ['cms:lastModified', 'Date', '2024-01-02T03:04:05.000+00:00'];

/**
 * /home (page) → /home/main (area) → /home/main/teaser (component), and /home/about (page) →
 * /home/about/main (area); ids uuid(1) to uuid(5) in that order.
 */
export async function seedSite(store: ContentStore, label: string): Promise<{ ws: string; pub: string }> {
  const ws = freshWorkspace(label);
  await importDocuments(store, [document(ws, '/', [
    draft('home', { id: uuid(1), type: PAGE, properties: [['title', 'String', 'Home'], MODIFIED] }, [
      draft('main', { id: uuid(2), type: AREA, properties: [MODIFIED] }, [
        draft('teaser', { id: uuid(3), type: COMPONENT, properties: [['text', 'String', 'Hello']] }),
      ]),
      draft('about', { id: uuid(4), type: PAGE, properties: [['title', 'String', 'About'], MODIFIED] }, [
        draft('main', { id: uuid(5), type: AREA }),
      ]),
    ]),
  ])], NEW);
  return { ws, pub: publishedWorkspace(ws) };
}

export function request(workspace: string, path: string, more: Partial<StateRequest> = {}): StateRequest {
  return { workspace, path, recursive: false, takenAlong, by: 'alice', now: NOW, ...more };
}

export function prop(node: NodeRecord | undefined, name: string): unknown {
  return node?.properties.find(([n]) => n === name)?.[2];
}

/** Every path of the workspace, in path order. */
export async function pathsIn(store: ContentStore, workspace: string): Promise<string[]> {
  return (await store.reads.getSubtree(workspace, '/', 99)).map((n) => n.path).sort();
}
