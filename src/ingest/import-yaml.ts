// Ingest layer: a YAML bootstrap export read whole into its trees (the reader is yaml-export-reader.ts;
// read-export.ts reads every format, streamed or whole).
import type { ImportDocument } from '../repository/import-document.js';
import type { BlobSpool } from '../store/rows.js';
import type { DraftSink } from './draft-sink.js';
import { readExport, readExportInto, type ReadExportOptions } from './read-export.js';

export function parseYamlExport(file: string, opts: ReadExportOptions): Promise<ImportDocument> {
  return readExport(file, opts);
}

/** Streams a YAML export into a sink; resolves with the binaries its Binary values name. */
export async function readYamlExport(file: string, opts: ReadExportOptions, sink: DraftSink): Promise<BlobSpool[]> {
  return (await readExportInto(file, opts, sink)).blobs;
}
