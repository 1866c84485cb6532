// Ingest layer: finds content export files (and reads one whole, through read-export.ts).
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ImportDocument } from '../repository/import-document.js';
import { toImportError } from './import-error.js';
import { exportFileSegments } from './parse-file-name.js';
import { readExport, type ReadExportOptions } from './read-export.js';

export type LoadExportOptions = ReadExportOptions;

/** Reads a whole export file into its trees. */
export function loadExport(file: string, opts: LoadExportOptions): Promise<ImportDocument> {
  return readExport(file, opts);
}

const EXPORT_FILE = /\.(yaml|xml)$/i;

/**
 * Expands directories (recursively, skipping hidden entries) to export files and orders them so a node is
 * imported before the files that place content under it: `dam.tours.xml` before `dam.tours.shark.xml`.
 */
export async function listExportFiles(paths: string[]): Promise<string[]> {
  const files = new Set<string>();
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(path)).isDirectory();
    } catch (err) {
      throw toImportError(path, err);
    }
    if (isDirectory) for (const file of await walk(path)) files.add(file);
    else files.add(path);
  }
  return sortExportFiles([...files]);
}

/** Orders export files so a node is imported before the files that place content under it. */
export function sortExportFiles(files: readonly string[]): string[] {
  const keyed = files.map((file) => ({ file, name: basename(file), segments: exportFileSegments(file) }));
  keyed.sort((a, b) =>
    compare(a.segments[0], b.segments[0])
    || a.segments.length - b.segments.length
    || compare(a.name, b.name)
    || compare(a.file, b.file));
  return keyed.map((k) => k.file);
}

async function walk(dir: string): Promise<string[]> {
  const found: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw toImportError(dir, err);
  }
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...await walk(path));
    else if (entry.isFile() && EXPORT_FILE.test(entry.name)) found.push(path);
  }
  return found;
}

/** Code-point order, so the import order never depends on the machine's locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
