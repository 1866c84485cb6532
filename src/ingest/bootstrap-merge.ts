// Ingest layer: a changed bootstrap file's document, merged with what the store holds under its roots,
// so that writing it (an import replaces each root's whole subtree) changes only the file's own nodes
// that no write changed since its last import:
// - a node a write changed (or created, moved, removed) is kept as the write left it, with its subtree;
// - a node the file holds otherwise gets the file's content (and keeps its stored UUID when the file
//   gives none);
// - a stored node that was not the file's at its last import (another file's, an editor's, an HTTP
//   import's) is kept with its subtree;
// - a node of the file's last import that the file no longer holds is removed, unless something below
//   it is kept (then it stays as stored, to hold it).
import type { ContentStore } from '../store/content-store.js';
import type { ImportDocument, NodeDraft } from '../repository/import-document.js';
import type { NodeRecord } from '../store/rows.js';
import { joinPath } from '../model/paths.js';
import type { EditedPaths } from './bootstrap-edits.js';

/** Deeper than any tree a file holds: the whole stored subtree of a root. */
const WHOLE_SUBTREE = 1_000_000;

export interface MergeInput {
  /** The paths of the document's workspace the file held at its last import (empty: a new file). */
  readonly previous: ReadonlySet<string>;
  /** What writes changed since that import (none: `overwrite`, or a new file). */
  readonly edited: EditedPaths;
}

/** The document to write, and the nodes kept as writes left them (their paths). */
export async function mergeDocument(store: ContentStore, doc: ImportDocument, input: MergeInput): Promise<{ document: ImportDocument; kept: string[] }> {
  const kept: string[] = [];
  const roots: NodeDraft[] = [];
  for (const root of doc.roots) {
    const path = joinPath(doc.parentPath, root.name);
    const stored = new StoredTree(await store.reads.getSubtree(doc.workspace, path, WHOLE_SUBTREE));
    const merger = new Merger(input, stored, kept);
    // A root kept as it is stored needs no writing at all.
    if (merger.isEditOfFile(path, root)) {
      kept.push(path);
      continue;
    }
    const merged = merger.merge(path, root, stored.at(path));
    if (merged !== undefined) roots.push(merged);
  }
  return { document: { ...doc, roots }, kept };
}

class StoredTree {
  readonly #byPath = new Map<string, NodeRecord>();
  readonly #children = new Map<string, NodeRecord[]>();

  constructor(rows: readonly NodeRecord[]) {
    for (const r of rows) {
      this.#byPath.set(r.path, r);
      let list = this.#children.get(r.parentPath);
      if (!list) this.#children.set(r.parentPath, (list = []));
      list.push(r);
    }
    for (const list of this.#children.values()) list.sort((a, b) => a.position - b.position || (a.name < b.name ? -1 : 1));
  }

  at(path: string): NodeRecord | undefined {
    return this.#byPath.get(path);
  }

  childrenOf(path: string): readonly NodeRecord[] {
    return this.#children.get(path) ?? [];
  }

  /** The stored node and its subtree as drafts (their UUIDs and properties as stored). */
  draft(record: NodeRecord): NodeDraft {
    return { ...own(record), children: this.childrenOf(record.path).map((c) => this.draft(c)) };
  }
}

function own(r: NodeRecord): Omit<NodeDraft, 'children'> {
  return { name: r.name, id: r.id, type: r.type, mixins: [...r.mixins], properties: [...r.properties] };
}

class Merger {
  constructor(private readonly input: MergeInput, private readonly stored: StoredTree, private readonly kept: string[]) {}

  /** A write changed this node of the file (held at the last import, or held now). */
  isEditOfFile(path: string, draft: NodeDraft | undefined): boolean {
    const { edited, previous } = this.input;
    return (edited.all || edited.paths.has(path)) && (draft !== undefined || previous.has(path));
  }

  merge(path: string, draft: NodeDraft | undefined, record: NodeRecord | undefined): NodeDraft | undefined {
    if (this.isEditOfFile(path, draft)) {
      this.kept.push(path);
      return record !== undefined ? this.stored.draft(record) : undefined;
    }
    if (draft !== undefined) {
      const id = draft.id ?? record?.id;
      return { ...draft, ...(id !== undefined ? { id } : {}), children: this.#children(path, draft.children) };
    }
    if (record === undefined) return undefined;
    const children = this.#children(path, []);
    // Not the file's: kept. The file's, and no longer in it: removed unless it holds a kept node.
    if (!this.input.previous.has(path) || children.length > 0) return { ...own(record), children };
    return undefined;
  }

  /** The file's children in its order, then the stored ones it does not hold, in stored order. */
  #children(path: string, drafts: readonly NodeDraft[]): NodeDraft[] {
    const out: NodeDraft[] = [];
    const named = new Set<string>();
    for (const d of drafts) {
      named.add(d.name);
      const childPath = joinPath(path, d.name);
      const merged = this.merge(childPath, d, this.stored.at(childPath));
      if (merged !== undefined) out.push(merged);
    }
    for (const r of this.stored.childrenOf(path)) {
      if (named.has(r.name)) continue;
      const merged = this.merge(r.path, undefined, r);
      if (merged !== undefined) out.push(merged);
    }
    return out;
  }
}

/** Every path the document holds (its roots and their descendants). */
export function pathsOf(doc: ImportDocument): string[] {
  const out: string[] = [];
  const walk = (d: NodeDraft, path: string) => {
    out.push(path);
    for (const c of d.children) walk(c, joinPath(path, c.name));
  };
  for (const r of doc.roots) walk(r, joinPath(doc.parentPath, r.name));
  return out;
}
