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

/** The document with `step` run on each batch (in place) before the batch is written. */
export function throughEntries(
  doc: StreamedDocument, step: (batch: readonly NodeEntry[], paths: readonly string[]) => void | Promise<void>,
): StreamedDocument {
  const paths = new EntryPaths(doc.parentPath);
  async function* entries(): AsyncGenerator<readonly NodeEntry[]> {
    for await (const batch of doc.entries) {
      await step(batch, batch.map((e) => paths.pathOf(e)));
      yield batch;
    }
  }
  return { ...doc, entries: entries(), blobs: () => doc.blobs() };
}
