// Conformance helpers: small builders of NodeDraft, ImportDocument and BlobSpool values, and record views.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredProperty } from '../../src/model/property-type.js';
import type { BlobSpool, NodeRecord } from '../../src/store/rows.js';
import type { ImportDocument, ImportOptions, NodeDraft } from '../../src/repository/import-document.js';

export const NEW: ImportOptions = { onUuidCollision: 'new' };
export const REPLACE: ImportOptions = { onUuidCollision: 'replace' };
export const FAIL: ImportOptions = { onUuidCollision: 'fail' };

export interface DraftOptions {
  id?: string;
  type?: string;
  mixins?: string[];
  properties?: StoredProperty[];
  line?: number;
}

export function draft(name: string, options: DraftOptions = {}, children: NodeDraft[] = []): NodeDraft {
  const out: NodeDraft = { name, mixins: options.mixins ?? [], properties: options.properties ?? [], children };
  if (options.id !== undefined) out.id = options.id;
  if (options.type !== undefined) out.type = options.type;
  if (options.line !== undefined) out.line = options.line;
  return out;
}

/** Leaves named by `names`, in that order (the order is their natural order once imported). */
export function leaves(...names: string[]): NodeDraft[] {
  return names.map((name) => draft(name));
}

export function document(
  workspace: string, parentPath: string, roots: NodeDraft[], options: { source?: string; blobs?: BlobSpool[] } = {},
): ImportDocument {
  return {
    source: options.source ?? `${workspace}${parentPath === '/' ? '' : parentPath.replaceAll('/', '.')}.test`,
    workspace, parentPath, roots, blobs: options.blobs ?? [],
  };
}

/** A valid, recognisable uuid: `uuid(7)` → `00000000-0000-4000-8000-000000000007`. */
export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

let workspaces = 0;
/** A workspace name no other test of the run uses, so tests can share one store per suite. */
export function freshWorkspace(label: string): string {
  return `${label}-${++workspaces}`;
}

export function countDrafts(drafts: readonly NodeDraft[]): number {
  let n = 0;
  for (const d of drafts) n += 1 + countDrafts(d.children);
  return n;
}

/** Writes `bytes` to `dir` and describes them as the importers' spool would. */
export async function spoolBytes(dir: string, bytes: Uint8Array): Promise<BlobSpool> {
  const hash = createHash('sha256').update(bytes).digest('hex');
  const file = join(dir, hash);
  await writeFile(file, bytes);
  return { hash, size: bytes.length, file };
}

export function pathsOf(records: readonly NodeRecord[]): string[] {
  return records.map((r) => r.path);
}

export function byPath(a: NodeRecord, b: NodeRecord): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
