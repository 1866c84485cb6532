// Ingest layer: an import over HTTP is written by its caller, as a Nodes API write is. Every imported
// node gets `cms:created` / `cms:lastModified` now and `cms:createdBy` / `cms:lastModifiedBy` the
// caller; the file's values for the properties Petal maintains (those four, JCR's `jcr:created*` and
// `jcr:lastModified*`, and with publishing on the activation ones, which activation-on-import.ts then
// sets from the published state) are dropped, so a file cannot forge who wrote what, or when.
// `petal import` is the operator's tool (migrations): it keeps the file's values.
import type { StoredProperty } from '../model/property-type.js';
import { isMaintained, stampMaintained, storedNow } from '../repository/maintained-properties.js';
import type { ImportDocument, NodeDraft } from '../repository/import-document.js';
import type { EntryStep } from './entry-paths.js';

export interface Author {
  readonly by: string;
  /** As ImportRunOptions.publishing. */
  readonly publishing: boolean;
  /** The write's instant (as storedNow); now when absent. */
  readonly now?: string;
}

/** Sets the maintained properties of every node of `documents` (in place) as written by `author.by` now. */
export function authorDocuments(documents: readonly ImportDocument[], author: Author): void {
  const stamp = stamper(author);
  const all = (draft: NodeDraft): void => {
    stamp(draft);
    draft.children.forEach(all);
  };
  for (const doc of documents) doc.roots.forEach(all);
}

/** The same for a streamed document, as its entries pass. */
export function authorStep(author: Author): EntryStep {
  const stamp = stamper(author);
  return (batch) => { for (const { draft } of batch) stamp(draft); };
}

function stamper(author: Author): (draft: NodeDraft) => void {
  const now = author.now ?? storedNow();
  return (draft) => {
    const own: StoredProperty[] = draft.properties.filter(([name]) => !isMaintained(name, author.publishing));
    // Every imported node is new (a re-imported one replaces the old): created now, as a Nodes API create.
    draft.properties = stampMaintained(own, { by: author.by, now, created: true, publishing: false });
  };
}
