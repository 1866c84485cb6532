// Ingest layer: where an export file's content goes, read from its name (`website.travel.about.yaml`).
import { basename } from 'node:path';
import { ImportError } from './import-error.js';
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../model/names.js';
import { nodeNameProblem } from './node-draft.js';

const EXPORT_EXTENSION = /\.(yaml|xml)$/i;

/**
 * The dot-separated segments of an export file name without its extension:
 * `[workspace, ...parent path segments, node name]`, or just `[workspace]` for a whole-workspace export.
 */
export function exportFileSegments(fileName: string): string[] {
  const base = basename(fileName).replace(EXPORT_EXTENSION, '');
  const segments = base.split('.');
  if (segments.some((s) => s === '')) {
    throw new ImportError(fileName, undefined,
      `file name "${basename(fileName)}" has an empty segment; expected <workspace>.<path>.<name>.yaml|xml`);
  }
  if (!isWorkspaceName(segments[0]!)) throw new ImportError(fileName, undefined, `file name "${basename(fileName)}": ${WORKSPACE_NAME_RULE}`);
  // The parent path's segments name the folders an import creates when they are missing: node names too.
  for (const segment of segments.slice(1, -1)) {
    const problem = nodeNameProblem(segment);
    if (problem !== undefined) throw new ImportError(fileName, undefined, `file name "${basename(fileName)}": ${problem}`);
  }
  return segments;
}

/** `website.travel.about.yaml` → `{ workspace: 'website', parentPath: '/travel' }`; the node name comes from the content. */
export function parseExportFileName(fileName: string): { workspace: string; parentPath: string } {
  const [workspace, ...rest] = exportFileSegments(fileName);
  return { workspace, parentPath: '/' + rest.slice(0, -1).join('/') };
}
