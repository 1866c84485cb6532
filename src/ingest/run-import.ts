// Ingest layer: `petal import` end to end: lists the export files, parses them all (binaries spooled
// to a temporary folder, swept at the next import if this one is killed), then writes them in ONE store transaction, so a broken file changes nothing.
import { rm, stat } from 'node:fs/promises';
import type { ContentStore } from '../store/content-store.js';
import type { ImportDocument, StreamedDocument, UuidCollisionPolicy } from '../repository/import-document.js';
import { listExportFiles, loadExport, sortExportFiles } from './load-export.js';
import { ImportError } from './import-error.js';
import { ImportConflictError, InvalidDocumentError } from '../repository/write-import.js';
import type { ImportGuard } from '../repository/import-document.js';
import type { BootstrapRecords } from '../store/bootstrap-files.js';
import { joinPath } from '../model/paths.js';
import { caseVariantOf } from '../model/names.js';
import { createSpoolFolder } from './spool-folder.js';
import { openExport } from './read-export.js';
import { throughEntries, type EntryStep } from './entry-paths.js';
import { FileRecords } from './file-records.js';
import { parseExportFileName } from './parse-file-name.js';
import { activationStep, markActivation } from './activation-on-import.js';
import { authorStep } from './import-authoring.js';
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
   * to write instead, and the bootstrap records to write in their transaction (bootstrap.ts). The
   * files are then read whole, not streamed (the start-time import merges whole documents).
   */
  readonly prepare?: (documents: readonly ImportDocument[]) => Promise<PreparedImport>;
  /**
   * `petal import`: the files are recorded as the start-time import records them (bootstrap.ts), by
   * their path relative to this folder, so that a start skips them while unchanged.
   */
  readonly record?: string;
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
    if (options.prepare !== undefined) return await importWhole(store, files, sizes, spoolDir, options, started);
    await refuseCaseVariants(store, files.map((file) => ({ source: file, workspace: parseExportFileName(file).workspace })));
    const roots = new Roots();
    const record = options.record !== undefined ? new FileRecords(options.record) : undefined;
    let bytesBefore = 0;
    async function* documents(): AsyncGenerator<StreamedDocument> {
      for (const [i, file] of files.entries()) {
        const before = bytesBefore;
        const doc = await openExport(file, {
          spoolDir,
          onProgress: (read: number) => options.onProgress?.({ phase: 'parse', file, bytesDone: before + read, bytesTotal }),
          ...(record !== undefined ? { onBytes: record.hasher(file) } : {}),
        });
        const steps: EntryStep[] = [roots.step(doc.workspace)];
        if (record !== undefined) steps.push(record.step(doc));
        if (options.publishing === true) steps.push(activationStep(store, doc.workspace));
        yield throughEntries(doc, steps);
        bytesBefore += sizes[i]!;
      }
      options.onProgress?.({ phase: 'write', bytesDone: bytesTotal, bytesTotal });
    }
    const result = await importDocuments(store, documents(), {
      onUuidCollision: options.onUuidCollision,
      ...(record !== undefined ? { bootstrap: () => record.records() } : {}),
    }, expectedNodes(bytesTotal));
    const ms = performance.now() - started;
    const workspaces = [...new Set(files.map((f) => parseExportFileName(f).workspace))];
    const { warnings, ...indexSegments } = await refreshIndex(store, workspaces, [...(record?.warnings ?? []), ...result.warnings]);
    return { files: files.length, nodes: result.nodes, bytes: bytesTotal, ms, warnings, roots: roots.list, indexSegments };
  } finally {
    await rm(spoolDir, { recursive: true, force: true });
  }
}

/** The start-time import (a `prepare` that merges whole documents): files read whole, then written. */
async function importWhole(
  store: ContentStore, files: readonly string[], sizes: readonly number[], spoolDir: string, options: ImportRunOptions, started: number,
): Promise<ImportRunResult> {
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
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
  const prepared = await options.prepare!(documents);
  const result = await importDocuments(store, prepared.documents, {
    onUuidCollision: options.onUuidCollision, ...(prepared.bootstrap !== undefined ? { bootstrap: prepared.bootstrap } : {}),
  });
  const ms = performance.now() - started;
  const workspaces = [...new Set(prepared.documents.map((d) => d.workspace))];
  const { warnings, ...indexSegments } = await refreshIndex(store, workspaces, result.warnings);
  return {
    files: files.length, nodes: result.nodes, bytes: bytesTotal, ms, warnings,
    roots: rootsOf(prepared.documents), indexSegments,
  };
}

/**
 * Nodes thought to be in export files of this many bytes, for the store to prepare a large import:
 * an exported node takes some 300 (YAML) to 900 (XML) bytes; fewer bytes per node says more nodes.
 */
function expectedNodes(bytes: number): number {
  return Math.ceil(bytes / 300);
}

/** The top-level nodes written, in import order, each once, as their documents pass. */
class Roots {
  readonly #seen = new Set<string>();
  readonly list: { workspace: string; path: string }[] = [];

  step(workspace: string): EntryStep {
    return (batch, paths) => {
      for (const [i, entry] of batch.entries()) {
        if (entry.depth !== 0) continue;
        const key = `${workspace}\n${paths[i]}`;
        if (this.#seen.has(key)) continue;
        this.#seen.add(key);
        this.list.push({ workspace, path: paths[i]! });
      }
    };
  }
}

/**
 * After the commit, the persisted query index segments of the workspaces written, so that the next
 * instance to start reads them instead of SQL. The import stands whatever happens here: a failure is a warning.
 */
async function refreshIndex(store: ContentStore, workspaces: readonly string[], warnings: readonly string[]): Promise<{ written: number; ms: number; warnings: readonly string[] }> {
  const started = performance.now();
  try {
    const written = await store.caches?.refreshPersisted(workspaces) ?? 0;
    return { written, ms: performance.now() - started, warnings };
  } catch (err) {
    const warning = `the query index's persisted segments were not refreshed (the next start reads them from the database): ${(err as Error).message}`;
    return { written: 0, ms: performance.now() - started, warnings: [...warnings, warning] };
  }
}

/** A workspace an import creates may not differ only by case from an existing one, nor from another of the import. */
async function refuseCaseVariants(store: ContentStore, documents: readonly { readonly source: string; readonly workspace: string }[]): Promise<void> {
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
  /**
   * Asked once per file when its reading begins (its roots as they come: `authorizeRoot`); throws to
   * refuse the whole import, which then rolls back.
   */
  readonly authorize?: (document: { readonly workspace: string; readonly parentPath: string }) => void;
  readonly authorizeRoot?: (workspace: string, path: string) => void;
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
  const files = sortExportFiles(uploads.map((u) => u.file));
  let bytes = 0;
  for (const file of files) bytes += (await stat(file)).size;
  const named = (file: string) => ({ source: byFile.get(file)!, workspace: parseExportFileName(byFile.get(file)!).workspace });
  try {
    await refuseCaseVariants(store, files.map(named));
    const roots = new Roots();
    async function* documents(): AsyncGenerator<StreamedDocument> {
      for (const file of files) {
        const doc: StreamedDocument = { ...await openExport(file, { spoolDir }), source: byFile.get(file)! };
        options.authorize?.(doc);
        const steps: EntryStep[] = [];
        const authorizeRoot = options.authorizeRoot;
        if (authorizeRoot !== undefined) {
          steps.push((batch, paths) => {
            for (const [i, entry] of batch.entries()) if (entry.depth === 0) authorizeRoot(doc.workspace, paths[i]!);
          });
        }
        steps.push(roots.step(doc.workspace), authorStep({ by: options.by, publishing: options.publishing === true }));
        if (options.publishing === true) steps.push(activationStep(store, doc.workspace));
        yield throughEntries(doc, steps);
      }
    }
    const result = await importDocuments(store, documents(), {
      onUuidCollision: options.onUuidCollision,
      by: options.by,
      ...(options.guard !== undefined ? { guard: options.guard } : {}),
    }, expectedNodes(bytes));
    const ms = performance.now() - started;
    const workspaces = [...new Set(files.map((f) => named(f).workspace))];
    const { warnings, ...indexSegments } = await refreshIndex(store, workspaces, result.warnings);
    return { files: files.length, nodes: result.nodes, bytes, ms, warnings, roots: roots.list, indexSegments };
  } catch (err) {
    // Errors name the uploaded file, never the spool path.
    if (err instanceof ImportError && byFile.has(err.file)) throw new ImportError(byFile.get(err.file)!, err.line, err.reason, { cause: err });
    throw err;
  }
}

export { ImportConflictError, InvalidDocumentError };
