// Ingest layer: the `content:` files of petal.yaml, imported at a start ONCE each, as the original
// CMS's bootstrap files are. The store records every file imported (path, SHA-256, the change sequence
// number it committed at, its nodes: store/bootstrap-files.ts) in the import's own transaction, so:
// - an unchanged file is skipped;
// - a new file is imported (merged with what the store holds under its roots: bootstrap-merge.ts);
// - a changed file is imported again where writes did not change its nodes since (policy `seed`,
//   bootstrap-edits.ts), or whole (`overwrite`); either way nodes that were not the file's are kept.
// Instances sharing a database take turns (store.withBootstrapFiles); a write that commits between
// the decision and the import makes the import roll back and the decision be taken again.
import { createHash } from 'node:crypto';
import type { ContentStore } from '../store/content-store.js';
import { BootstrapRaceError, type BootstrapFile, type BootstrapNodes, type NewBootstrapFile } from '../store/bootstrap-files.js';
import type { ImportDocument, UuidCollisionPolicy } from '../repository/import-document.js';
import { listExportFiles } from './load-export.js';
import { importPaths, type ImportRunResult, type PreparedImport } from './run-import.js';
import { Edits } from './bootstrap-edits.js';
import { mergeDocument, pathsOf } from './bootstrap-merge.js';
import { recordedPath, sha256Of } from './file-records.js';

export { recordedPath };

export type ContentPolicy = 'seed' | 'overwrite';

export interface BootstrapOptions {
  /** Files are recorded by their path relative to this folder (the config file's), else absolute. */
  readonly baseDir: string;
  readonly policy: ContentPolicy;
  readonly onUuidCollision: UuidCollisionPolicy;
  readonly publishing?: boolean;
}

export interface KeptNodes {
  /** The file as recorded (relative to the config folder). */
  readonly file: string;
  /** `workspace:path` of each node kept as a write left it. */
  readonly nodes: readonly string[];
}

export interface BootstrapResult {
  readonly unchanged: number;
  /** The import of the new and changed files; undefined when there was none. */
  readonly imported?: ImportRunResult;
  readonly kept: readonly KeptNodes[];
}

/** How often a decision is taken again when writes keep committing during the import. */
const ATTEMPTS = 5;

export async function bootstrapContent(store: ContentStore, paths: readonly string[], options: BootstrapOptions): Promise<BootstrapResult> {
  const files = await listExportFiles([...paths]);
  const hashes = new Map(await Promise.all(files.map(async (f) => [f, await sha256Of(f)] as const)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.withBootstrapFiles((recorded) => bootstrapTurn(store, files, hashes, recorded, options));
    } catch (err) {
      if (!(err instanceof BootstrapRaceError) || attempt >= ATTEMPTS) throw err;
    }
  }
}

async function bootstrapTurn(
  store: ContentStore, files: readonly string[], hashes: ReadonlyMap<string, string>, recorded: readonly BootstrapFile[], options: BootstrapOptions,
): Promise<BootstrapResult> {
  const records = new Map(recorded.map((r) => [r.path, r]));
  const key = (file: string) => recordedPath(options.baseDir, file);
  const todo = files.filter((f) => records.get(key(f))?.sha256 !== hashes.get(f));
  const unchanged = files.length - todo.length;
  if (todo.length === 0) return { unchanged, kept: [] };
  // Read before anything the decision rests on: a write committed after it rolls the import back.
  const decidedAt = await store.changes.latest();
  const kept: KeptNodes[] = [];
  const prepare = async (documents: readonly ImportDocument[]): Promise<PreparedImport> => {
    const previous = documents.map((d) => records.get(key(d.source)));
    const since = Math.min(...previous.map((p) => p?.sequence ?? decidedAt));
    const edits = options.policy === 'seed' ? await Edits.read(store, since, decidedAt) : undefined;
    const out: ImportDocument[] = [];
    for (const [i, doc] of documents.entries()) {
      const last = previous[i];
      const { document, kept: paths } = await mergeDocument(store, doc, {
        previous: new Set(last?.nodes[doc.workspace] ?? []),
        edited: edits !== undefined && last !== undefined ? edits.since(last.sequence, doc.workspace) : { all: false, paths: new Set() },
      });
      out.push(document);
      if (paths.length > 0) kept.push({ file: key(doc.source), nodes: paths.map((p) => `${doc.workspace}:${p}`) });
    }
    return { documents: out, bootstrap: { files: bootstrapRecords(documents, key, hashes), decidedAt } };
  };
  const imported = await importPaths(store, todo, {
    onUuidCollision: options.onUuidCollision, prepare, ...(options.publishing === true ? { publishing: true } : {}),
  });
  return { unchanged, imported, kept };
}

/** One record per file: its hash and the paths it holds (before any merge: the file's own nodes). */
function bootstrapRecords(documents: readonly ImportDocument[], key: (file: string) => string, hashes: ReadonlyMap<string, string>): NewBootstrapFile[] {
  const byFile = new Map<string, { sha256: string; nodes: Record<string, string[]> }>();
  for (const doc of documents) {
    const path = key(doc.source);
    let entry = byFile.get(path);
    if (!entry) byFile.set(path, (entry = { sha256: hashes.get(doc.source)!, nodes: {} }));
    const list = (entry.nodes[doc.workspace] ??= []);
    // One push per path: spreading a large file's paths into one call exceeds the stack.
    for (const path of pathsOf(doc)) list.push(path);
  }
  return [...byFile].map(([path, e]) => ({ path, sha256: e.sha256, nodes: e.nodes as BootstrapNodes }));
}
