// Export layer (CLI): `petal export WORKSPACE PATH [--format yaml|xml] [--out FILE]`. The store comes from
// the caller (cli.ts resolves --config / --store); the CLI reads everything, as `petal import` writes everything.
import { createWriteStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../model/names.js';
import { normalizePath } from '../model/paths.js';
import type { StoreOpener } from '../ingest/version-commands.js';
import { isExportFormat } from './export-file-name.js';
import { prepareExport } from './export-subtree.js';
import { storeSource } from './walk-tree.js';

export const EXPORT_USAGE = `Usage: petal export WORKSPACE PATH [--format yaml|xml] [--out FILE] [--store URL] [--config FILE]
  Writes the node at PATH and its subtree as a file \`petal import\` takes back (PATH / = the whole workspace).
  --format F  yaml (default) or xml (JCR system view; the default, and the only format, for PATH /)
  --out FILE  write to FILE instead of standard output; a folder gets the file name import expects
              (<workspace>.<path segments>.<format>, e.g. website.travel.about.yaml)
`;

export async function exportCommand(args: string[], open: StoreOpener): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' }, store: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' },
      help: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(EXPORT_USAGE); return 0; }
  if (positionals.length !== 2) { process.stderr.write(`petal export: name a WORKSPACE and a PATH\n\n${EXPORT_USAGE}`); return 2; }
  const [workspace, raw] = positionals as [string, string];
  const path = normalizePath(raw);
  if (!isWorkspaceName(workspace)) { process.stderr.write(`petal export: invalid workspace ${JSON.stringify(workspace)}: ${WORKSPACE_NAME_RULE}\n`); return 2; }
  if (path === undefined) { process.stderr.write(`petal export: invalid PATH ${JSON.stringify(raw)}\n`); return 2; }
  const format = values.format ?? (path === '/' ? 'xml' : 'yaml');
  if (!isExportFormat(format)) { process.stderr.write(`petal export: --format must be yaml or xml, not ${JSON.stringify(format)}\n`); return 2; }

  const { store, url } = await open(values, { readOnly: true });
  try {
    const prepared = await prepareExport(storeSource(store.reads), store.blobs, workspace, path, format);
    if (!prepared.ok) {
      process.stderr.write(`petal export: ${prepared.problem === 'missing' ? `${prepared.reason} in ${url}` : prepared.reason}\n`);
      return 1;
    }
    if (values.out === undefined) {
      await pipeline(prepared.open(), process.stdout, { end: false });
      return 0;
    }
    const isFolder = await stat(values.out).then((s) => s.isDirectory(), () => false);
    const file = isFolder ? join(values.out, prepared.fileName) : values.out;
    try {
      await pipeline(prepared.open(), createWriteStream(file));
    } catch (err) {
      // A half-written export would import as a damaged file: leave none.
      await unlink(file).catch(() => undefined);
      throw err;
    }
    process.stderr.write(`exported ${workspace}:${path} to ${file}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
