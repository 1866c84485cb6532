// Export layer: one export file of a node's subtree (or a whole workspace): its name and its bytes as a stream.
import { Readable } from 'node:stream';
import type { BlobSource } from '../assets/read-binary.js';
import type { NodeRecord } from '../store/rows.js';
import { walkTree, type ExportSource } from './walk-tree.js';
import { exportFileName, unnamableExport, type ExportFormat } from './export-file-name.js';
import { writeJcrXml } from './write-jcr-xml.js';
import { writeYaml } from './write-yaml.js';

/** Text is gathered into chunks of about this size before it is written, so tiny pieces do not cost a write each. */
const OUTPUT_CHUNK_CHARS = 64 * 1024;

export type PreparedExport =
  | { readonly ok: true; readonly fileName: string; readonly contentType: string; open(): Readable }
  /** `missing`: no node at the path (or none the source may read); `unnamable`: see `reason`. */
  | { readonly ok: false; readonly problem: 'missing' | 'unnamable'; readonly reason: string };

/**
 * Checks that the export can be made and reads its top node; the stream reads the rest as it is
 * consumed, so a failure before the first byte is an answer, not a broken file.
 */
export async function prepareExport(
  source: ExportSource, blobs: BlobSource, workspace: string, path: string, format: ExportFormat,
): Promise<PreparedExport> {
  const unnamable = unnamableExport(workspace, path, format);
  if (unnamable !== undefined) return { ok: false, problem: 'unnamable', reason: unnamable };
  let top: NodeRecord | null = null;
  if (path !== '/') {
    const node = await source.getNode(workspace, path);
    if (node === undefined) return { ok: false, problem: 'missing', reason: `no node at ${workspace}:${path}` };
    top = node;
  }
  const events = walkTree(source, workspace, top);
  const text = format === 'xml' ? writeJcrXml(events, { blobs, workspaceRoot: path === '/' }) : writeYaml(events, { blobs });
  return {
    ok: true,
    fileName: exportFileName(workspace, path, format),
    contentType: format === 'xml' ? 'application/xml; charset=utf-8' : 'application/yaml; charset=utf-8',
    // Bytes, not objects: a buffer of 16 objects could hold 16 binary chunks read ahead of a slow reader.
    open: () => Readable.from(inChunks(text), { objectMode: false, highWaterMark: OUTPUT_CHUNK_CHARS }),
  };
}

async function* inChunks(pieces: AsyncIterable<string>): AsyncGenerator<Buffer> {
  let parts: string[] = [];
  let chars = 0;
  for await (const piece of pieces) {
    parts.push(piece);
    chars += piece.length;
    if (chars >= OUTPUT_CHUNK_CHARS) {
      yield Buffer.from(parts.join(''), 'utf8');
      parts = [];
      chars = 0;
    }
  }
  if (chars > 0) yield Buffer.from(parts.join(''), 'utf8');
}
