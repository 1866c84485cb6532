// Ingest layer: `petal import` records the files it imports as the start-time import does
// (bootstrap.ts: hash and the paths each holds), so that a start with them under `content:` skips
// them while unchanged. A streamed import records the paths as its entries pass, up to a bound:
// a file of more nodes is not recorded (a start would import it again), said in a warning.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { BootstrapNodes, BootstrapRecords, NewBootstrapFile } from '../store/bootstrap-files.js';
import type { EntryStep } from './entry-paths.js';

/** Paths recorded per file, at most: the record is one row, read whole at every start. */
export const RECORDED_PATHS_MAX = 100_000;

/** Relative to the config folder when inside it (the same file whichever folder Petal runs from). */
export function recordedPath(baseDir: string, file: string): string {
  const rel = relative(baseDir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : file;
}

/** SHA-256 of a file's bytes, hex, read as a stream. */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export class FileRecords {
  readonly #byFile = new Map<string, { nodes: Record<string, string[]>; count: number }>();
  readonly #over = new Set<string>();
  readonly warnings: string[] = [];

  constructor(private readonly baseDir: string) {}

  readonly #hashes = new Map<string, Hash>();

  /** Feeds the file's bytes, as read, to its hash, until the file has more paths than are recorded. */
  hasher(file: string): (bytes: Buffer) => void {
    const hash = createHash('sha256');
    this.#hashes.set(file, hash);
    const key = recordedPath(this.baseDir, file);
    // A file over the bound is not recorded: the rest of its hash (a second of CPU per GB) would be wasted.
    return (bytes) => { if (!this.#over.has(key)) hash.update(bytes); };
  }

  /** Records the document's paths as they pass. */
  step(doc: { readonly source: string; readonly workspace: string }): EntryStep {
    const key = recordedPath(this.baseDir, doc.source);
    let entry = this.#byFile.get(key);
    if (!entry) this.#byFile.set(key, (entry = { nodes: {}, count: 0 }));
    const record = entry;
    const list = (record.nodes[doc.workspace] ??= []);
    return (_batch, paths) => {
      if (this.#over.has(key)) return;
      record.count += paths.length;
      if (record.count > RECORDED_PATHS_MAX) {
        this.#over.add(key);
        record.nodes = {};
        list.length = 0;
        this.warnings.push(`${doc.source}: not recorded for the start-time import (more than ${RECORDED_PATHS_MAX} nodes): a start with it under content: imports it again`);
        return;
      }
      for (const path of paths) list.push(path);
    };
  }

  /** The records of the files read whole, those over the bound left out. */
  records(): BootstrapRecords | undefined {
    const files: NewBootstrapFile[] = [];
    for (const [file, hash] of this.#hashes) {
      const path = recordedPath(this.baseDir, file);
      const entry = this.#byFile.get(path);
      if (entry === undefined || this.#over.has(path)) continue;
      files.push({ path, sha256: hash.digest('hex'), nodes: entry.nodes as BootstrapNodes });
    }
    return files.length > 0 ? { files } : undefined;
  }
}
