// Ingest layer: what the steps between reading and writing a streamed document see of it: each batch
// of its entries, with each entry's path (the reader gives names and depths only).
import type { NodeEntry, StreamedDocument } from '../repository/import-document.js';
import { joinPath } from '../model/paths.js';

/** Paths of a document's entries, taken in order. */
export class EntryPaths {
  readonly #open: string[] = [];

  constructor(private readonly parentPath: string) {}

  pathOf(entry: NodeEntry): string {
    this.#open.length = entry.depth;
    const path = joinPath(this.#open.at(-1) ?? this.parentPath, entry.draft.name);
    this.#open.push(path);
    return path;
  }
}

/** What is done to each batch of entries (in place) before it is written; `paths`: each entry's. */
export type EntryStep = (batch: readonly NodeEntry[], paths: readonly string[]) => void | Promise<void>;

/** The document with `steps` run in order on each batch before the batch is written (paths taken once). */
export function throughEntries(doc: StreamedDocument, steps: readonly EntryStep[]): StreamedDocument {
  if (steps.length === 0) return doc;
  const paths = new EntryPaths(doc.parentPath);
  async function* entries(): AsyncGenerator<readonly NodeEntry[]> {
    for await (const batch of doc.entries) {
      const batchPaths = batch.map((e) => paths.pathOf(e));
      for (const step of steps) await step(batch, batchPaths);
      yield batch;
    }
  }
  return { ...doc, entries: entries(), blobs: () => doc.blobs() };
}
