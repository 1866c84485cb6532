// Repository layer: the rules of an import, over the store's ImportTx, so that the rules for
// replacing nodes, creating missing parents and UUID collisions are the same everywhere.
import { randomUUID } from 'node:crypto';
import { ancestorsOf, depthOf, joinPath, parentOf, nameOf, isValidName, ROOT_IDENTIFIER } from '../model/paths.js';
import type { ImportTx } from '../store/import-tx.js';
import type { ImportDocument, ImportOptions, ImportResult, NodeDraft } from './import-document.js';
import { ChangeRecorder } from './change-recorder.js';

export const DEFAULT_NODE_TYPE = 'cms:contentNode';
export const FOLDER_TYPE = 'cms:folder';

export class ImportConflictError extends Error {
  /** What may be told to a caller who cannot read everywhere (no path of another node). */
  readonly publicMessage: string;

  constructor(readonly source: string, message: string, publicMessage = message) {
    super(`${source}: ${message}`);
    this.name = 'ImportConflictError';
    this.publicMessage = `${source}: ${publicMessage}`;
  }
}

/**
 * A document that no export file could hold (a node name the repository refuses): the parsers refuse
 * such files first, with their line (400 `invalidImport` over HTTP, never a conflict).
 */
export class InvalidDocumentError extends Error {
  constructor(readonly source: string, message: string) {
    super(`${source}: ${message}`);
    this.name = 'InvalidDocumentError';
  }
}

/** A UUID an imported node cannot take, whatever the reason: the same words whoever holds it, readable or not. */
export function unusableUuidMessage(id: string, ws: string, path: string): string {
  return `uuid ${id} of ${ws}:${path} cannot be used: it is taken or reserved`;
}

export async function applyImport(
  tx: ImportTx,
  documents: readonly ImportDocument[],
  options: ImportOptions,
): Promise<ImportResult> {
  const warnings: string[] = [];
  const changes = new ChangeRecorder();
  let nodes = 0;

  for (const doc of documents) {
    const ws = doc.workspace;
    changes.touch(ws);
    for (const ancestor of [...ancestorsOf(doc.parentPath), ...(doc.parentPath === '/' ? [] : [doc.parentPath])]) {
      if ((await tx.positionOf(ws, ancestor)) !== undefined) continue;
      options.guard?.create(ws, ancestor);
      const parent = parentOf(ancestor);
      const id = randomUUID();
      await tx.insertNode({
        id, workspace: ws, path: ancestor, parentPath: parent, name: nameOf(ancestor),
        depth: depthOf(ancestor), position: (await tx.maxChildPosition(ws, parent)) + 1,
        type: FOLDER_TYPE, mixins: [], properties: [],
      });
      changes.inserted(ws, { id, path: ancestor, type: FOLDER_TYPE });
      nodes++;
    }

    for (const root of doc.roots) {
      if (!isValidName(root.name)) throw new InvalidDocumentError(doc.source, `invalid node name ${JSON.stringify(root.name)}`);
      const path = joinPath(doc.parentPath, root.name);
      let position = await tx.positionOf(ws, path);
      if (position !== undefined) {
        options.guard?.remove(ws, path);
        await removeSubtree(tx, changes, ws, path);
      } else position = (await tx.maxChildPosition(ws, doc.parentPath)) + 1;
      if (tx.prefetchIds) await tx.prefetchIds(ws, idsOf(root));
      nodes += await insertDraft(tx, changes, doc, root, doc.parentPath, position, options, warnings);
    }

    for (const blob of doc.blobs) {
      if (!(await tx.hasBlob(blob.hash))) await tx.insertBlob(blob);
    }
  }
  // In the import's transaction: the events commit (or roll back) with the nodes.
  const events = changes.changes('import', options.by);
  for (const change of events) await tx.recordChange(change);
  if (options.bootstrap !== undefined) await tx.recordBootstrap(options.bootstrap, events.length);
  await tx.bumpGeneration();
  return { nodes, warnings };
}

/** Deletes a subtree, telling the recorder which nodes go (listed first, within its bound). */
async function removeSubtree(tx: ImportTx, changes: ChangeRecorder, ws: string, path: string): Promise<void> {
  const listed = changes.isTruncated(ws) ? undefined : await tx.subtreeNodes(ws, path, changes.listLimit);
  changes.removed(ws, listed, await tx.deleteSubtree(ws, path));
}

async function insertDraft(
  tx: ImportTx,
  changes: ChangeRecorder,
  doc: ImportDocument,
  draft: NodeDraft,
  parentPath: string,
  position: number,
  options: ImportOptions,
  warnings: string[],
): Promise<number> {
  const ws = doc.workspace;
  const path = joinPath(parentPath, draft.name);
  const where = draft.line !== undefined ? `${doc.source}:${draft.line}` : doc.source;
  if (!isValidName(draft.name)) throw new InvalidDocumentError(where, `invalid node name ${JSON.stringify(draft.name)}`);

  if ((await tx.positionOf(ws, path)) !== undefined) {
    // Two siblings of one name in a document (possible in XML): the later one wins, as on re-import.
    warnings.push(`${where}: ${ws}:${path} appears twice; the later node replaces the earlier`);
    await removeSubtree(tx, changes, ws, path);
  }
  let id = draft.id ?? randomUUID();
  // A fresh random UUID cannot collide (as the fresh one given on collision below, which is not checked).
  // The root's fixed identifier is held by `/`, an ancestor of every node.
  const holder = draft.id === undefined ? undefined : id === ROOT_IDENTIFIER ? '/' : await tx.pathOfId(ws, id);
  if (holder !== undefined) {
    const ancestor = holder === '/' || path.startsWith(`${holder}/`);
    if (options.onUuidCollision === 'fail') {
      throw new ImportConflictError(where, `uuid ${id} of ${ws}:${path} already belongs to ${ws}:${holder}`, unusableUuidMessage(id, ws, path));
    } else if (options.onUuidCollision === 'replace' && !ancestor) {
      options.guard?.remove(ws, holder, id);
      warnings.push(`${where}: uuid ${id} moved from ${ws}:${holder} (removed with its subtree) to ${ws}:${path}`);
      await removeSubtree(tx, changes, ws, holder);
    } else {
      // `new`, or `replace` of an ancestor (removing it would orphan this node).
      const fresh = randomUUID();
      warnings.push(`${where}: uuid ${id} of ${ws}:${path} already belongs to ${ws}:${holder}; ${path} gets the new uuid ${fresh}`);
      id = fresh;
    }
  }

  await tx.insertNode({
    id, workspace: ws, path, parentPath, name: draft.name, depth: depthOf(path), position,
    type: draft.type ?? DEFAULT_NODE_TYPE, mixins: draft.mixins, properties: storable(draft.properties),
  });
  changes.inserted(ws, { id, path, type: draft.type ?? DEFAULT_NODE_TYPE });
  let count = 1;
  let childPosition = 0;
  for (const child of draft.children) {
    count += await insertDraft(tx, changes, doc, child, path, childPosition++, options, warnings);
  }
  return count;
}

/** The ids a draft and its descendants bring from their source. */
function idsOf(draft: NodeDraft, out: string[] = []): string[] {
  if (draft.id !== undefined) out.push(draft.id);
  for (const child of draft.children) idsOf(child, out);
  return out;
}

/** JSON has no NaN or Infinity: such Double values are kept as their text ("NaN", "Infinity"). */
export function storable(properties: NodeDraft['properties']): NodeDraft['properties'] {
  const bad = (v: unknown) => typeof v === 'number' && !Number.isFinite(v);
  if (!properties.some(([, , v]) => (Array.isArray(v) ? v.some(bad) : bad(v)))) return properties;
  return properties.map(([n, t, v]) => [n, t, Array.isArray(v) ? v.map((x) => (bad(x) ? String(x) : x)) : bad(v) ? String(v) : v] as const);
}
