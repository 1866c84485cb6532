// Ingest layer: the activation status of imported nodes when publishing is on. An export file carries
// the status its source had (an export of the original's author instance says "activated" for what
// was activated there), which says nothing of what this Petal has published. So before the import is
// written, every imported node's status is set from the published state: a node published here and
// imported with the same content stays published, one imported with other content is "modified",
// and one never published here has no status at all.
import type { ContentStore } from '../store/content-store.js';
import type { StoredProperty } from '../model/property-type.js';
import type { ImportDocument, NodeDraft } from '../repository/import-document.js';
import type { EntryStep } from './entry-paths.js';
import type { NodeRecord } from '../store/rows.js';
import { joinPath } from '../model/paths.js';
import { ACTIVATION_PROPERTIES, ACTIVATION_STATUS, LAST_ACTIVATED, LAST_ACTIVATED_BY, STATUS } from '../repository/publishing.js';
import { publishedWorkspace } from '../model/workspaces.js';
import { DEFAULT_NODE_TYPE, storable } from '../repository/write-import.js';

/** Deeper than any tree an import holds: the whole published subtree of a root. */
const WHOLE_SUBTREE = 1_000_000;

/** Sets the activation properties of every node of `documents` from the published state (in place). */
export async function markActivation(store: ContentStore, documents: readonly ImportDocument[]): Promise<void> {
  for (const doc of documents) {
    const published = publishedWorkspace(doc.workspace);
    for (const root of doc.roots) {
      const rootPath = joinPath(doc.parentPath, root.name);
      const rows = await store.reads.getSubtree(published, rootPath, WHOLE_SUBTREE);
      const byPath = new Map(rows.map((r) => [r.path, r]));
      mark(root, rootPath, byPath);
    }
  }
}

/**
 * The same for a streamed document, as its entries pass: the published subtree of each root is read
 * when the root comes (held while its entries pass: memory grows with what is published there).
 */
export function activationStep(store: ContentStore, workspace: string): EntryStep {
  const published = publishedWorkspace(workspace);
  let byPath: ReadonlyMap<string, NodeRecord> = new Map();
  return async (batch, paths) => {
    for (const [i, { depth, draft }] of batch.entries()) {
      if (depth === 0) {
        const rows = await store.reads.getSubtree(published, paths[i]!, WHOLE_SUBTREE);
        byPath = new Map(rows.map((r) => [r.path, r]));
      }
      markOne(draft, paths[i]!, byPath);
    }
  };
}

function mark(draft: NodeDraft, path: string, published: ReadonlyMap<string, NodeRecord>): void {
  markOne(draft, path, published);
  for (const child of draft.children) mark(child, joinPath(path, child.name), published);
}

function markOne(draft: NodeDraft, path: string, published: ReadonlyMap<string, NodeRecord>): void {
  const own = draft.properties.filter(([name]) => !ACTIVATION_PROPERTIES.has(name));
  const copy = published.get(path);
  if (copy !== undefined) {
    const status = sameContent(draft, own, copy) ? STATUS.published : STATUS.modified;
    own.push([ACTIVATION_STATUS, 'String', status]);
    for (const name of [LAST_ACTIVATED, LAST_ACTIVATED_BY]) {
      const p = copy.properties.find(([n]) => n === name);
      if (p !== undefined) own.push(p);
    }
  }
  draft.properties = own;
}

/** The same type, mixins and properties (the activation ones aside) as the published copy. */
function sameContent(draft: NodeDraft, own: readonly StoredProperty[], copy: NodeRecord): boolean {
  if ((draft.type ?? DEFAULT_NODE_TYPE) !== copy.type) return false;
  if (JSON.stringify(draft.mixins) !== JSON.stringify(copy.mixins)) return false;
  const published = copy.properties.filter(([name]) => !ACTIVATION_PROPERTIES.has(name));
  return JSON.stringify(storable([...own])) === JSON.stringify(published);
}
