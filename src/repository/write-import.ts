// Repository layer: the rules of an import, over the store's ImportTx, so that the rules for
// replacing nodes, creating missing parents and UUID collisions are the same everywhere.
import { randomUUID } from 'node:crypto';
import { ancestorsOf, depthOf, joinPath, parentOf, nameOf, isValidName, ROOT_IDENTIFIER } from '../model/paths.js';
import type { ImportTx } from '../store/import-tx.js';
import type { ImportDocument, ImportOptions, ImportResult, NodeDraft, NodeEntry, StreamedDocument } from './import-document.js';
import { ChangeRecorder } from './change-recorder.js';
import { Fingerprints } from '../store/fingerprints.js';

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

/** An in-memory document as a streamed one: each root's subtree one batch of entries. */
export function streamOf(doc: ImportDocument): StreamedDocument {
  async function* entries(): AsyncGenerator<readonly NodeEntry[]> {
    for (const root of doc.roots) yield flatten(root, 0, []);
  }
  return { source: doc.source, workspace: doc.workspace, parentPath: doc.parentPath, entries: entries(), blobs: () => doc.blobs };
}

function flatten(draft: NodeDraft, depth: number, out: NodeEntry[]): NodeEntry[] {
  out.push({ depth, draft: { ...draft, children: [] } });
  for (const child of draft.children) flatten(child, depth + 1, out);
  return out;
}

/** What an import writes: documents in memory, or streamed ones opened one after the other. */
export type ImportDocuments = Iterable<ImportDocument | StreamedDocument> | AsyncIterable<ImportDocument | StreamedDocument>;

function isStreamed(doc: ImportDocument | StreamedDocument): doc is StreamedDocument {
  return 'entries' in doc;
}

/** Entries whose uuids are looked up together (the store holds the answers while they are written). */
const PREFETCH_ENTRIES = 2_000;

/** A node of the document being written whose children are still coming. */
interface OpenNode {
  readonly path: string;
  nextPosition: number;
  /**
   * Names of its children, as fingerprints: the node being new, they are all it holds, so a name not
   * among them is free without asking the store (a maybe is asked). Fingerprints, not the names: a
   * name read from a file may hold on to the text around it.
   */
  readonly names: Fingerprints;
}

export async function applyImport(
  tx: ImportTx,
  documents: ImportDocuments,
  options: ImportOptions,
): Promise<ImportResult> {
  const state: ImportState = { tx, changes: new ChangeRecorder(), options, warnings: [], open: [] };
  let nodes = 0;

  for await (const document of documents) {
    const doc = isStreamed(document) ? document : streamOf(document);
    const ws = doc.workspace;
    state.changes.touch(ws);
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
      state.changes.inserted(ws, { id, path: ancestor, type: FOLDER_TYPE });
      nodes++;
    }

    const open = state.open;
    open.length = 0;
    for await (const batch of doc.entries) {
      for (let i = 0; i < batch.length; i++) {
        const { depth, draft } = batch[i]!;
        if (i % PREFETCH_ENTRIES === 0 && tx.prefetchIds) await tx.prefetchIds(ws, idsOf(batch, i, i + PREFETCH_ENTRIES));
        if (depth > open.length) throw new InvalidDocumentError(doc.source, `node ${JSON.stringify(draft.name)} comes without its parent`);
        open.length = depth;
        const parent = open.at(-1);
        let position: number;
        if (parent === undefined) {
          if (!isValidName(draft.name)) throw new InvalidDocumentError(doc.source, `invalid node name ${JSON.stringify(draft.name)}`);
          const path = joinPath(doc.parentPath, draft.name);
          const taken = await tx.positionOf(ws, path);
          if (taken !== undefined) {
            options.guard?.remove(ws, path);
            await removeSubtree(state, ws, path);
            position = taken;
          } else position = (await tx.maxChildPosition(ws, doc.parentPath)) + 1;
        } else position = parent.nextPosition++;
        const path = await insertEntry(state, doc, draft, parent, position);
        open.push({ path, nextPosition: 0, names: new Fingerprints() });
        nodes++;
      }
    }

    for (const blob of doc.blobs()) {
      if (!(await tx.hasBlob(blob.hash))) await tx.insertBlob(blob);
    }
  }
  // In the import's transaction: the events commit (or roll back) with the nodes.
  const events = state.changes.changes('import', options.by);
  for (const change of events) await tx.recordChange(change);
  const bootstrap = typeof options.bootstrap === 'function' ? options.bootstrap() : options.bootstrap;
  if (bootstrap !== undefined) await tx.recordBootstrap(bootstrap, events.length);
  await tx.bumpGeneration();
  return { nodes, warnings: state.warnings };
}

interface ImportState {
  readonly tx: ImportTx;
  readonly changes: ChangeRecorder;
  readonly options: ImportOptions;
  readonly warnings: string[];
  /** The nodes of the document being written whose children are still coming, outermost first. */
  readonly open: OpenNode[];
}

/** Deletes a subtree, telling the recorder which nodes go (listed first, within its bound). */
async function removeSubtree(state: ImportState, ws: string, path: string): Promise<void> {
  const { tx, changes } = state;
  const listed = changes.isTruncated(ws) ? undefined : await tx.subtreeNodes(ws, path, changes.listLimit);
  changes.removed(ws, listed, await tx.deleteSubtree(ws, path));
}

/** Writes one node (its children come as later entries); returns its path. */
async function insertEntry(
  state: ImportState,
  doc: StreamedDocument,
  draft: NodeDraft,
  parent: OpenNode | undefined,
  position: number,
): Promise<string> {
  const { tx, changes, options, warnings } = state;
  const ws = doc.workspace;
  const parentPath = parent?.path ?? doc.parentPath;
  const path = joinPath(parentPath, draft.name);
  if (!isValidName(draft.name)) throw new InvalidDocumentError(whereOf(doc, draft), `invalid node name ${JSON.stringify(draft.name)}`);

  const names = parent?.names;
  const taken = names !== undefined && !names.mayHave(draft.name) ? false : (await tx.positionOf(ws, path)) !== undefined;
  if (taken) {
    // Two siblings of one name in a document (possible in XML): the later one wins, as on re-import.
    warnings.push(`${whereOf(doc, draft)}: ${ws}:${path} appears twice; the later node replaces the earlier`);
    await removeSubtree(state, ws, path);
  }
  names?.add(draft.name);
  let id = draft.id ?? randomUUID();
  // A fresh random UUID cannot collide (as the fresh one given on collision below, which is not checked).
  // The root's fixed identifier is held by `/`, an ancestor of every node.
  const holder = draft.id === undefined ? undefined : id === ROOT_IDENTIFIER ? '/' : await tx.pathOfId(ws, id);
  if (holder !== undefined) {
    const ancestor = holder === '/' || path.startsWith(`${holder}/`);
    if (options.onUuidCollision === 'fail') {
      throw new ImportConflictError(whereOf(doc, draft), `uuid ${id} of ${ws}:${path} already belongs to ${ws}:${holder}`, unusableUuidMessage(id, ws, path));
    } else if (options.onUuidCollision === 'replace' && !ancestor) {
      options.guard?.remove(ws, holder, id);
      warnings.push(`${whereOf(doc, draft)}: uuid ${id} moved from ${ws}:${holder} (removed with its subtree) to ${ws}:${path}`);
      await removeSubtree(state, ws, holder);
    } else {
      // `new`, or `replace` of an ancestor (removing it would orphan this node).
      const fresh = randomUUID();
      warnings.push(`${whereOf(doc, draft)}: uuid ${id} of ${ws}:${path} already belongs to ${ws}:${holder}; ${path} gets the new uuid ${fresh}`);
      id = fresh;
    }
  }

  await tx.insertNode({
    id, workspace: ws, path, parentPath, name: draft.name, depth: depthOf(path), position,
    type: draft.type ?? DEFAULT_NODE_TYPE, mixins: draft.mixins, properties: storable(draft.properties),
  });
  changes.inserted(ws, { id, path, type: draft.type ?? DEFAULT_NODE_TYPE });
  return path;
}

/** Where a node was read, for a message (made only then: a string per node showed in imports' garbage). */
function whereOf(doc: StreamedDocument, draft: NodeDraft): string {
  return draft.line !== undefined ? `${doc.source}:${draft.line}` : doc.source;
}

/** The ids the nodes of a batch bring from their source (entries `from` to before `to`). */
function idsOf(batch: readonly NodeEntry[], from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i < Math.min(to, batch.length); i++) {
    const id = batch[i]!.draft.id;
    if (id !== undefined) out.push(id);
  }
  return out;
}

/** JSON has no NaN or Infinity: such Double values are kept as their text ("NaN", "Infinity"). */
export function storable(properties: NodeDraft['properties']): NodeDraft['properties'] {
  // A loop, not some() with destructuring closures: this runs for every node of an import.
  let any = false;
  for (let i = 0; i < properties.length && !any; i++) {
    const v = properties[i]![2];
    any = Array.isArray(v) ? v.some(bad) : bad(v);
  }
  if (!any) return properties;
  return properties.map(([n, t, v]) => [n, t, Array.isArray(v) ? v.map((x) => (bad(x) ? String(x) : x)) : bad(v) ? String(v) : v] as const);
}

function bad(v: unknown): boolean {
  return typeof v === 'number' && !Number.isFinite(v);
}
