// Repository layer: every content write, as one call over a ContentStore: the rules (write-nodes.ts,
// publish-state.ts, write-import.ts) run inside the store's transaction, so what they decide and what
// is written agree, and a refusal writes nothing. Text the backend cannot hold is made storable here
// (capabilities.storableText), so the rules see the values as they will be stored.
import type { ContentStore } from '../store/content-store.js';
import type { ImportDocument, ImportOptions, ImportResult, NodeDraft, StreamedDocument } from './import-document.js';
import type { VersionInfo } from '../store/versions.js';
import { NodeWriteError, type NodeOperation, type NodeWriteOptions, type NodeWriteResult } from './node-write.js';
import { applyNodeWrites } from './write-nodes.js';
import { applyPublish, applyUnpublish, applyVersion } from './publish-state.js';
import { applyImport, type ImportDocuments } from './write-import.js';
import type { StateRequest, StateResult } from './publishing.js';

/** The Nodes API's writes (create, update, delete, move) in ONE transaction with ONE change event. */
export function writeNodes(
  store: ContentStore, workspace: string, operations: readonly NodeOperation[], options: NodeWriteOptions,
): Promise<NodeWriteResult> {
  const by = store.capabilities.storableText(options.by);
  return store.transaction((tx) => applyNodeWrites(tx, workspace, operations, { ...options, by }));
}

/**
 * Records the next version of the node at `path` (`1.0`, then `1.1`, …) with its change event and a
 * generation bump; undefined, and nothing written, when there is no node there.
 */
export async function publishVersion(store: ContentStore, workspace: string, path: string, by: string): Promise<VersionInfo | undefined> {
  if (!storable(store, workspace, path)) return undefined;
  return store.transaction((tx) => applyVersion(tx, workspace, path, store.capabilities.storableText(by)));
}

/** Publishing on: copies the working node (and what the request takes along) into the published state. */
export function publishState(store: ContentStore, request: StateRequest): Promise<StateResult> {
  return store.transaction(async (tx) => applyPublish(tx, storableRequest(store, request)));
}

/** Removes the published node with its subtree and marks the working subtree unpublished. */
export function unpublishState(store: ContentStore, request: StateRequest): Promise<StateResult> {
  return store.transaction(async (tx) => applyUnpublish(tx, storableRequest(store, request)));
}

/**
 * Writes all documents in one transaction: all of them become visible, or none (then it throws).
 * `expectedNodes`: how many nodes streamed documents are thought to hold (the store prepares for a
 * large import by it); in-memory documents are counted.
 */
export function importDocuments(
  store: ContentStore, documents: ImportDocuments, options: ImportOptions, expectedNodes = 0,
): Promise<ImportResult> {
  const counted = Array.isArray(documents) ? draftCount((documents as readonly (ImportDocument | StreamedDocument)[]).filter((d): d is ImportDocument => 'roots' in d)) : 0;
  return store.importTransaction(counted + expectedNodes, (tx) => applyImport(tx, documents, options));
}

/** Nodes the documents hold (roots and descendants; folders an import creates not counted). */
export function draftCount(documents: readonly ImportDocument[]): number {
  const count = (d: NodeDraft): number => d.children.reduce((n, c) => n + count(c), 1);
  return documents.reduce((n, doc) => n + doc.roots.reduce((m, r) => m + count(r), 0), 0);
}

/** A workspace and path the store can hold (else no stored node has them). */
function storable(store: ContentStore, workspace: string, path: string): boolean {
  const text = store.capabilities.storableText;
  return text(workspace) === workspace && text(path) === path;
}

/**
 * A publish or unpublish the store can run: a path or workspace it cannot hold names no node (so the
 * answer is `missing`, and a schedule id it cannot hold is no stored schedule's), and the name and
 * comment it writes are made storable.
 */
function storableRequest(store: ContentStore, r: StateRequest): StateRequest {
  const text = store.capabilities.storableText;
  if (!storable(store, r.workspace, r.path)) {
    throw new NodeWriteError('missing', `No node at ${text(r.path)} in workspace ${text(r.workspace)}`);
  }
  return {
    ...r, by: text(r.by), ...(r.comment !== undefined ? { comment: text(r.comment) } : {}),
    ...(r.schedule !== undefined ? { schedule: text(r.schedule) } : {}),
  };
}
