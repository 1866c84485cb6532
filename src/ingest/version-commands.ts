// Ingest layer (CLI): `petal versions`, the publishing step of `petal import --publish`, and what the
// store commands share (the store opener, WORKSPACE PATH). `petal publish` is in publish-commands.ts.
// The store comes from the caller (cli.ts resolves --config / --store).
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../model/names.js';
import { normalizePath } from '../model/paths.js';
import type { PetalConfig } from '../config/load-config.js';
import type { ContentStore } from '../store/content-store.js';
import type { VersionInfo } from '../store/versions.js';
import { publishVersion } from '../repository/writes.js';
import type { PublishingStore } from '../publishing/publisher.js';

export const VERSIONS_USAGE = `Usage: petal versions WORKSPACE PATH [--json] [--store URL] [--config FILE]
  Lists the stored versions of PATH (name, date, who, nodes), oldest first.
`;

/**
 * Opens the store the flags name (as `petal import` does); returns it with its URL for messages and the
 * settings of the config the commands read (absent: publishing off, no extra node types).
 */
/** `readOnly`: refuse a store that is not there yet instead of creating it (store-exists.ts). */
export type StoreOpener = (flags: { config?: string; store?: string }, options?: { readOnly?: boolean }) => Promise<{
  store: ContentStore; url: string; config?: Pick<PetalConfig, 'publishing' | 'nodeTypes' | 'webhooks'>;
  /** The publications over `store`; publishingStore(store) when absent (tests give their own). */
  publications?: PublishingStore;
}>;

/** Who publishes when no --by is given: the operating-system user, else `cli`. */
export function defaultPublisher(): string {
  try {
    return userInfo().username || 'cli';
  } catch {
    return 'cli';
  }
}

/** Publishes each node in turn; a node that is gone by now is skipped (and reported by the caller). */
export async function publishNodes(
  store: ContentStore, nodes: readonly { workspace: string; path: string }[], by: string,
): Promise<{ published: VersionInfo[]; missing: string[] }> {
  const published: VersionInfo[] = [];
  const missing: string[] = [];
  for (const n of nodes) {
    const v = await publishVersion(store, n.workspace, n.path, by);
    if (v === undefined) missing.push(`${n.workspace}:${n.path}`);
    else published.push(v);
  }
  return { published, missing };
}

/** WORKSPACE and PATH from the positionals; a message (exit 2) when they are missing or not a node path. */
export function target(command: string, positionals: string[], usage: string): { workspace: string; path: string } | string {
  if (positionals.length !== 2) return `petal ${command}: name a WORKSPACE and a PATH\n\n${usage}`;
  const [workspace, raw] = positionals as [string, string];
  const path = normalizePath(raw);
  if (!isWorkspaceName(workspace)) return `petal ${command}: invalid workspace ${JSON.stringify(workspace)}: ${WORKSPACE_NAME_RULE}\n`;
  if (path === undefined || path === '/') return `petal ${command}: PATH must name a node (such as /site), not ${JSON.stringify(raw)}\n`;
  return { workspace, path };
}

export async function versionsCommand(args: string[], open: StoreOpener): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { config: { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(VERSIONS_USAGE); return 0; }
  const t = target('versions', positionals, VERSIONS_USAGE);
  if (typeof t === 'string') { process.stderr.write(t); return 2; }
  const { store } = await open(values, { readOnly: true });
  try {
    // The store's list: an operator sees the versions of a node that was deleted since, too.
    const list = await store.versions.list(t.workspace, t.path);
    if (values.json) {
      const out = list.map((v) => ({ name: v.name, created: v.created, createdBy: v.createdBy, nodes: v.nodes, nodeId: v.nodeId }));
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else if (list.length === 0) {
      process.stdout.write(`no versions of ${t.workspace}:${t.path}\n`);
    } else {
      const width = Math.max(7, ...list.map((v) => v.name.length));
      process.stdout.write(`${'VERSION'.padEnd(width)}  ${'CREATED'.padEnd(24)}  BY  (NODES)\n`);
      for (const v of list) process.stdout.write(`${v.name.padEnd(width)}  ${v.created.padEnd(24)}  ${v.createdBy}  (${v.nodes})\n`);
    }
    return 0;
  } finally {
    await store.close();
  }
}
