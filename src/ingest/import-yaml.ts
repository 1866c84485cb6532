// Ingest layer: parses a Magnolia YAML bootstrap export into an ImportDocument (no store access),
// streaming the file through YamlExportReader.
import { createReadStream } from 'node:fs';
import type { BlobSpool } from '../store/rows.js';
import type { ImportDocument } from '../repository/import-document.js';
import { toImportError } from './import-error.js';
import { parseExportFileName } from './parse-file-name.js';
import { DraftTree, type DraftSink } from './draft-sink.js';
import { YamlExportReader } from './yaml-export-reader.js';

const READ_CHUNK = 256 * 1024;

export async function parseYamlExport(file: string, opts: { spoolDir: string }): Promise<ImportDocument> {
  const { workspace, parentPath } = parseExportFileName(file);
  const tree = new DraftTree(file);
  const blobs = await readYamlExport(file, { spoolDir: opts.spoolDir }, tree);
  return { source: file, workspace, parentPath, roots: tree.roots, blobs };
}

/** Streams a YAML export into a sink; resolves with the binaries its Binary values name. */
export async function readYamlExport(
  file: string, opts: { spoolDir: string; onProgress?: (bytesRead: number) => void }, sink: DraftSink,
): Promise<BlobSpool[]> {
  const reader = new YamlExportReader(file, opts.spoolDir, sink);
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: READ_CHUNK });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      reader.write(chunk);
      // Waiting for the spool writes before reading on bounds memory to one chunk of decoded bytes.
      await reader.settled();
      opts.onProgress?.(stream.bytesRead);
    }
    reader.end();
    await reader.settled();
    return reader.blobs();
  } catch (err) {
    stream.destroy();
    await reader.abort();
    throw toImportError(file, err);
  }
}
