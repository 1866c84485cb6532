// Ingest layer (CLI): `petal changes`, the change log of the store (see store/changes.ts). The store
// comes from the caller (cli.ts resolves --config / --store).
import { parseArgs } from 'node:util';
import { CHANGES_PAGE_MAX, type ChangeEvent } from '../store/changes.js';
import type { StoreOpener } from './version-commands.js';

export const CHANGES_USAGE = `Usage: petal changes --since N [--limit M] [--json] [--store URL] [--config FILE]
  Lists the change events after sequence number N (0: from the first), oldest first: one per import
  of a workspace and per publish, with the nodes created, changed, moved and removed.
  --since N   the last sequence number already seen
  --limit M   most events to list (default 100, at most ${CHANGES_PAGE_MAX})
  --json      the events as a JSON array
`;

const COUNT = /^[0-9]{1,15}$/;

export async function changesCommand(args: string[], open: StoreOpener): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' }, store: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' },
      json: { type: 'boolean' }, help: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(CHANGES_USAGE); return 0; }
  const fail = (message: string) => { process.stderr.write(`petal changes: ${message}\n\n${CHANGES_USAGE}`); return 2; };
  if (positionals.length > 0) return fail(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.since === undefined) return fail('--since N is required (0 lists from the first event)');
  if (!COUNT.test(values.since)) return fail(`--since must be a whole number >= 0, not ${JSON.stringify(values.since)}`);
  const limit = values.limit ?? '100';
  if (!COUNT.test(limit) || Number(limit) < 1 || Number(limit) > CHANGES_PAGE_MAX) {
    return fail(`--limit must be a whole number from 1 to ${CHANGES_PAGE_MAX}, not ${JSON.stringify(limit)}`);
  }
  const { store } = await open(values, { readOnly: true });
  try {
    const events = await store.changes.since(Number(values.since), Number(limit));
    if (values.json) process.stdout.write(`${JSON.stringify(events, null, 2)}\n`);
    else if (events.length === 0) process.stdout.write(`no changes after ${values.since}\n`);
    else for (const e of events) process.stdout.write(describe(e));
    return 0;
  } finally {
    await store.close();
  }
}

/** One event: a header line, then one line per node (`+` created, `~` changed, `>` moved, `-` removed). */
function describe(e: ChangeEvent): string {
  const who = e.by !== undefined ? ` by ${e.by}` : '';
  const version = e.version !== undefined ? ` ${e.version}` : '';
  const size = e.truncated ? `${e.count} node operations, not listed (truncated)` : `${e.count} node${e.count === 1 ? '' : 's'}`;
  let out = `#${e.sequence}  ${e.at}  ${e.kind}${version}  ${e.workspace}${who}  (${size})\n`;
  for (const n of e.created) out += `  + ${n.path}  ${n.type}  ${n.id}\n`;
  for (const n of e.changed) out += `  ~ ${n.path}  ${n.type}  ${n.id}\n`;
  for (const n of e.moved) out += `  > ${n.path}  ${n.type}  ${n.id}  (from ${n.from ?? '?'})\n`;
  for (const n of e.removed) out += `  - ${n.path}  ${n.type}  ${n.id}\n`;
  return out;
}
