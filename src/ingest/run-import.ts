// Ingest layer: `petal import` end to end: lists the export files, parses them all (binaries spooled
// to a temporary folder, swept at the next import if this one is killed), then writes them in ONE store transaction, so a broken file changes nothing.
import { rm, stat } from 'node:fs/promises';
import type { ContentStore } from '../store/content-store.js';
import type { ImportDocument, UuidCollisionPolicy } from '../repository/import-document.js';
import { listExportFiles, loadExport, sortExportFiles } from './load-export.js';
import { ImportError } from './import-error.js';
import { ImportConflictError, InvalidDocumentError } from '../repository/write-import.js';
import type { ImportGuard } from '../repository/import-document.js';
import type { BootstrapRecords } from '../store/bootstrap-files.js';
import { joinPath } from '../model/paths.js';
import { caseVariantOf } from '../model/names.js';
import { createSpoolFolder } from './spool-folder.js';
import { markActivation } from './activation-on-import.js';
import { authorDocuments } from './import-authoring.js';
import { importDocuments } from '../repository/writes.js';

export interface ImportProgress {
  readonly phase: 'parse' | 'write';
  readonly file?: string;
  readonly bytesDone: number;
  readonly bytesTotal: number;
}

export interface ImportRunOptions {
  readonly onUuidCollision: UuidCollisionPolicy;
  readonly onProgress?: (p: ImportProgress) => void;
  /** Where the temporary folder of decoded binaries goes (default: the OS temporary folder). */
  readonly spoolParent?: string;
  /** Publishing is on: imported nodes get their activation status from the published state (activation-on-import.ts). */
  readonly publishing?: boolean;
  /**
   * Called with the parsed documents (activation marked) just before they are written: the documents
   * to write instead, and the bootstrap records to write in their transaction (bootstrap.ts).
   */
  readonly prepare?: (documents: readonly ImportDocument[]) => Promise<PreparedImport>;
}

export interface PreparedImport {
  readonly documents: readonly ImportDocument[];
  readonly bootstrap?: BootstrapRecords;
}

export interface ImportRunResult {
  readonly files: number;
  readonly nodes: number;
  readonly bytes: number;
  /** The import's own time (parse and commit), without the refresh of `indexSegments`. */
  readonly ms: number;
  readonly warnings: readonly string[];
  /** The top-level nodes written (each document's roots), in import order, each once (`import --publish`). */
  readonly roots: readonly { readonly workspace: string; readonly path: string }[];
  /** Persisted query index segments written again after the commit (store.caches.refreshPersisted), and the time it took. */
  readonly indexSegments: { readonly written: number; readonly ms: number };
}

export async function importPaths(store: ContentStore, paths: readonly string[], options: ImportRunOptions): Promise<ImportRunResult> {
  const started = performance.now();
  const files = await listExportFiles([...paths]);
  const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  const spoolDir = await createSpoolFolder(options.spoolParent);
  try {
    const documents: ImportDocument[] = [];
    let bytesDone = 0;
    for (let i = 0; i < files.length; i++) {
      const file = files[i]!;
      const before = bytesDone;
      documents.push(await loadExport(file, {
        spoolDir,
        onProgress: (read: number) => options.onProgress?.({ phase: 'parse', file, bytesDone: before + read, bytesTotal }),
      }));
      bytesDone += sizes[i]!;
      options.onProgress?.({ phase: 'parse', file, bytesDone, bytesTotal });
    }
    await refuseCaseVariants(store, documents);
    options.onProgress?.({ phase: 'write', bytesDone, bytesTotal });
    if (options.publishing === true) await markActivation(store, documents);
    const prepared = options.prepare !== undefined ? await options.prepare(documents) : { documents };
    const result = await importDocuments(store, prepared.documents, {
      onUuidCollision: options.onUuidCollision, ...(prepared.bootstrap !== undefined ? { bootstrap: prepared.bootstrap } : {}),
    });
    const ms = performance.now() - started;
    const { warnings, ...indexSegments } = await refreshIndex(store, prepared.documents, result.warnings);
    return {
      files: files.length, nodes: result.nodes, bytes: bytesTotal, ms, warnings,
      roots: rootsOf(prepared.documents), indexSegments,
    };
  } finally {
    await rm(spoolDir, { recursive: true, force: true });
  }
}

/**
 * After the commit, the persisted query index segments of the workspaces written, so that the next
 * instance to start reads them instead of SQL. The import stands whatever happens here: a failure is a warning.
 */
async function refreshIndex(store: ContentStore, documents: readonly ImportDocument[], warnings: readonly string[]): Promise<{ written: number; ms: number; warnings: readonly string[] }> {
  const started = performance.now();
  try {
    const written = await store.caches?.refreshPersisted([...new Set(documents.map((d) => d.workspace))]) ?? 0;
    return { written, ms: performance.now() - started, warnings };
  } catch (err) {
    const warning = `the query index's persisted segments were not refreshed (the next start reads them from the database): ${(err as Error).message}`;
    return { written: 0, ms: performance.now() - started, warnings: [...warnings, warning] };
  }
}

/** A workspace an import creates may not differ only by case from an existing one, nor from another of the import. */
async function refuseCaseVariants(store: ContentStore, documents: readonly ImportDocument[]): Promise<void> {
  const known = new Set(await store.reads.listWorkspaces());
  for (const doc of documents) {
    if (known.has(doc.workspace)) continue;
    const other = caseVariantOf(doc.workspace, known);
    if (other !== undefined) throw new ImportError(doc.source, undefined, `workspace ${doc.workspace} differs only by case from the workspace ${other}`);
    known.add(doc.workspace);
  }
}

function rootsOf(documents: readonly ImportDocument[]): { workspace: string; path: string }[] {
  const seen = new Set<string>();
  const out: { workspace: string; path: string }[] = [];
  for (const doc of documents) {
    for (const root of doc.roots) {
      const path = joinPath(doc.parentPath, root.name);
      const key = `${doc.workspace}\n${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ workspace: doc.workspace, path });
    }
  }
  return out;
}

/** An export file received over HTTP: spooled at `file`, known to its sender as `name`. */
export interface Upload {
  readonly file: string;
  readonly name: string;
}

export interface UploadImportOptions {
  readonly onUuidCollision: UuidCollisionPolicy;
  /** The caller: the change events' `by`, and the author of every imported node (import-authoring.ts). */
  readonly by: string;
  readonly guard?: ImportGuard;
  /** Asked once per parsed file before anything is written; throws to refuse the whole import. */
  readonly authorize?: (document: ImportDocument) => void;
  /** As ImportRunOptions.publishing. */
  readonly publishing?: boolean;
}

/**
 * The HTTP import: the same parsers, order and single transaction as `petal import`, with errors and
 * change sources naming the uploaded file, never the spool path; the caller is the author of every
 * node it imports (import-authoring.ts).
 */
export async function importUploads(store: ContentStore, uploads: readonly Upload[], spoolDir: string, options: UploadImportOptions): Promise<ImportRunResult> {
  const started = performance.now();
  const byFile = new Map(uploads.map((u) => [u.file, u.name]));
  const documents: ImportDocument[] = [];
  let bytes = 0;
  for (const file of sortExportFiles(uploads.map((u) => u.file))) {
    const name = byFile.get(file)!;
    bytes += (await stat(file)).size;
    try {
      documents.push({ ...await loadExport(file, { spoolDir }), source: name });
    } catch (err) {
      if (err instanceof ImportError) throw new ImportError(name, err.line, err.reason, { cause: err });
      throw err;
    }
  }
  for (const doc of documents) options.authorize?.(doc);
  await refuseCaseVariants(store, documents);
  authorDocuments(documents, { by: options.by, publishing: options.publishing === true });
  if (options.publishing === true) await markActivation(store, documents);
  const result = await importDocuments(store, documents, {
    onUuidCollision: options.onUuidCollision,
    by: options.by,
    ...(options.guard !== undefined ? { guard: options.guard } : {}),
  });
  const ms = performance.now() - started;
  const { warnings, ...indexSegments } = await refreshIndex(store, documents, result.warnings);
  return {
    files: documents.length, nodes: result.nodes, bytes, ms, warnings,
    roots: rootsOf(documents), indexSegments,
  };
}

export { ImportConflictError, InvalidDocumentError };
