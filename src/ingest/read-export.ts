// Ingest layer: reads one export file chunk by chunk through the reader of its format, as a streamed
// document (DraftStream: a bounded part of the file in memory) or as whole trees (DraftTree).
import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import type { BlobSpool } from '../store/rows.js';
import type { ImportDocument, NodeEntry, StreamedDocument } from '../repository/import-document.js';
import { ImportError, toImportError } from './import-error.js';
import { parseExportFileName } from './parse-file-name.js';
import { JcrXmlExportReader } from './import-jcr-xml.js';
import { DraftTree, type DraftSink } from './draft-sink.js';
import { DraftStream, HELD_NODES } from './draft-stream.js';
import { YamlExportReader } from './yaml-export-reader.js';

const READ_CHUNK = 256 * 1024;
/**
 * A YAML file's chunks: decoded, a chunk stays below V8's large-object size (128 KB, two-byte text
 * included), so it dies young with the lines cut from it; chunks of 256 KiB went to the large-object
 * space, freed only by a full collection, and ~40 MB of dead ones were a part of a server's peak RSS.
 */
const YAML_READ_CHUNK = 48 * 1024;

export interface ReadExportOptions {
  spoolDir: string;
  /** Bytes of the file read so far. */
  onProgress?: (bytesRead: number) => void;
  /** Each chunk of the file's bytes as read (a hash of the file without reading it twice). */
  onBytes?: (bytes: Buffer) => void;
}

/** What the readers of both formats do. */
interface ExportReader {
  write(chunk: string): void;
  end(): void;
  /** Binary values written to their spool files so far. */
  settled(): Promise<void>;
  abort(): Promise<void>;
  blobs(): BlobSpool[];
  /** The document's parent path is known (an XML export's root element may make it `/`). */
  readonly rootKnown: boolean;
  readonly isWorkspaceExport: boolean;
  /** Bytes read at a time (READ_CHUNK unless the reader says). */
  readonly chunkBytes?: number;
}

/** A YAML export is always placed by its file name. */
class YamlReader extends YamlExportReader implements ExportReader {
  readonly rootKnown = true;
  readonly isWorkspaceExport = false;
  readonly chunkBytes = YAML_READ_CHUNK;
}

function readerFor(file: string, spoolDir: string, sink: DraftSink): ExportReader {
  switch (extname(file).toLowerCase()) {
    case '.yaml':
      return new YamlReader(file, spoolDir, sink);
    case '.xml':
      return new JcrXmlExportReader(file, spoolDir, sink);
    default:
      throw new ImportError(file, undefined, 'unsupported file type (expected .yaml or .xml)');
  }
}

/**
 * A chunk's text. An ASCII chunk (most of an export) is copied as Latin-1, a third faster than UTF-8
 * decoding; a character cut by the previous chunk's end leaves its continuation bytes (not ASCII) at
 * the start of this one, so the decoder always finishes what it began.
 */
function decode(decoder: InstanceType<typeof TextDecoder>, bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : decoder.decode(bytes, { stream: true });
}

/**
 * A file read chunk by chunk; every failure is an ImportError naming it, and stops the reading. Bytes
 * are decoded by TextDecoder (native, and it carries a character split between chunks), several times
 * faster than a stream's own decoding on large files.
 */
class ChunkedRead {
  readonly #file: string;
  readonly #reader: ExportReader;
  readonly #stream: ReturnType<typeof createReadStream>;
  readonly #chunks: AsyncIterator<Buffer>;
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  readonly #options: Pick<ReadExportOptions, 'onProgress' | 'onBytes'>;
  done = false;

  constructor(file: string, reader: ExportReader, options: Pick<ReadExportOptions, 'onProgress' | 'onBytes'>) {
    this.#file = file;
    this.#reader = reader;
    this.#options = options;
    this.#stream = createReadStream(file, { highWaterMark: reader.chunkBytes ?? READ_CHUNK });
    this.#chunks = (this.#stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** Reads and hands over one chunk (or ends the input): false once the file is read. */
  async next(): Promise<boolean> {
    if (this.done) return false;
    try {
      const chunk = await this.#chunks.next();
      if (chunk.done === true) {
        const rest = this.#decoder.decode();
        if (rest !== '') this.#reader.write(rest);
        this.#reader.end();
        await this.#reader.settled();
        this.done = true;
        return false;
      }
      this.#options.onBytes?.(chunk.value);
      const text = decode(this.#decoder, chunk.value);
      if (text !== '') this.#reader.write(text);
      // Waiting for the spool writes before reading on bounds memory to one chunk of decoded bytes.
      await this.#reader.settled();
      this.#options.onProgress?.(this.#stream.bytesRead);
      return true;
    } catch (err) {
      await this.stop();
      throw toImportError(this.#file, err);
    }
  }

  /** Stops reading before the end (a failure, or a consumer that stopped). */
  async stop(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.#stream.destroy();
    await this.#reader.abort();
  }
}

/**
 * Opens a file as a streamed document: reads until its parent path is known (a broken start fails
 * here), the rest as its entries are read. Its entries must be read to their end, or the read be
 * stopped by leaving the loop over them.
 */
export async function openExport(file: string, opts: ReadExportOptions): Promise<StreamedDocument> {
  const target = parseExportFileName(file);
  const sink = new DraftStream(file, HELD_NODES);
  const reader = readerFor(file, opts.spoolDir, sink);
  const read = new ChunkedRead(file, reader, opts);
  while (!reader.rootKnown && await read.next());
  async function* entries(): AsyncGenerator<readonly NodeEntry[]> {
    try {
      for (;;) {
        const batch = sink.take();
        if (batch.length > 0) yield batch;
        if (!(await read.next())) break;
      }
      const last = sink.take();
      if (last.length > 0) yield last;
    } finally {
      await read.stop();
    }
  }
  return {
    source: file,
    workspace: target.workspace,
    parentPath: reader.isWorkspaceExport ? '/' : target.parentPath,
    entries: entries(),
    blobs: () => reader.blobs(),
  };
}

/** Reads a whole file into a sink; the binaries its Binary values name. */
export async function readExportInto(file: string, opts: ReadExportOptions, sink: DraftSink): Promise<{ blobs: BlobSpool[]; isWorkspaceExport: boolean }> {
  const reader = readerFor(file, opts.spoolDir, sink);
  const read = new ChunkedRead(file, reader, opts);
  while (await read.next());
  return { blobs: reader.blobs(), isWorkspaceExport: reader.isWorkspaceExport };
}

/** Reads a whole file into its trees (bootstrap merges, tests). */
export async function readExport(file: string, opts: ReadExportOptions): Promise<ImportDocument> {
  const target = parseExportFileName(file);
  const tree = new DraftTree(file);
  const { blobs, isWorkspaceExport } = await readExportInto(file, opts, tree);
  return {
    source: file,
    workspace: target.workspace,
    parentPath: isWorkspaceExport ? '/' : target.parentPath,
    roots: tree.roots,
    blobs,
  };
}
