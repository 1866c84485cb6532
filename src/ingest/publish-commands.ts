// Ingest layer (CLI): `petal publish`, `petal unpublish` and `petal schedules`. With `publishing:
// {enabled: true}` publish and unpublish move content between the working and the published state
// (now, or at --at through a stored schedule); without it `petal publish` keeps its first meaning,
// storing a version only, and what needs the two states is refused rather than silently ignored.
import { parseArgs } from 'node:util';
import { publicationDate } from '../publishing/publication-date.js';
import { publishingStore, requestPublication, type PublishOutcome } from '../publishing/publisher.js';
import { parseIsoInstant } from '../model/iso-instant.js';
import { NodeTypeRegistry } from '../repository/node-types.js';
import { parentOf } from '../model/paths.js';
import { takenAlongBy } from '../repository/publish-rules.js';
import { NodeWriteError } from '../repository/node-write.js';
import type { ScheduleAction } from '../store/schedules.js';
import { defaultPublisher, target, type StoreOpener } from './version-commands.js';

export const PUBLISH_USAGE = `Usage: petal publish WORKSPACE PATH [--recursive] [--comment C] [--by NAME] [--at ISO]
                     [--store URL] [--config FILE]
  With publishing enabled (petal.yaml publishing.enabled): copies the node (with --recursive its whole
  subtree, else it and its content: areas, components, resources, not its subpages) into the published
  state and records it as its next version. Its parent must be published already.
  Without it: stores a frozen copy of the node and its subtree as its next version (1.0, 1.1, …).
  --by NAME     who publishes (default: the operating-system user)
  --comment C   kept with the version (publishing enabled)
  --at ISO      when: an ISO 8601 instant with an offset or Z (2026-05-01T08:00:00+02:00); a future one
                stores a schedule the server runs when due (publishing enabled), at most
                publishing.scheduleHorizonDays (default 366) days ahead
`;

export const UNPUBLISH_USAGE = `Usage: petal unpublish WORKSPACE PATH [--by NAME] [--at ISO] [--store URL] [--config FILE]
  Removes the node and its whole subtree from the published state (publishing enabled); the working
  content stays. --at as for petal publish.
`;

export const SCHEDULES_USAGE = `Usage: petal schedules [--json] [--cancel ID] [--store URL] [--config FILE]
  Lists the stored schedules, soonest first (id, action, workspace:path, due, by, why a failed one was
  refused), or cancels the schedule ID.
`;


const STATE_OPTIONS = {
  config: { type: 'string' }, store: { type: 'string' }, by: { type: 'string' }, at: { type: 'string' }, help: { type: 'boolean' },
  recursive: { type: 'boolean' }, comment: { type: 'string' },
} as const;

export function publishCommand(args: string[], open: StoreOpener): Promise<number> {
  return stateCommand('publish', args, open);
}

export function unpublishCommand(args: string[], open: StoreOpener): Promise<number> {
  return stateCommand('unpublish', args, open);
}

async function stateCommand(action: ScheduleAction, args: string[], open: StoreOpener): Promise<number> {
  const usage = action === 'publish' ? PUBLISH_USAGE : UNPUBLISH_USAGE;
  const { values, positionals } = parseArgs({ args, options: STATE_OPTIONS, allowPositionals: true });
  if (values.help) { process.stdout.write(usage); return 0; }
  const recursive = values.recursive === true;
  const comment = values.comment;
  if (action === 'unpublish' && (recursive || comment !== undefined)) {
    // An unpublish always takes the whole published subtree, and records no version to comment.
    process.stderr.write(`petal unpublish: ${recursive ? '--recursive' : '--comment'} does not apply (an unpublish removes the whole published subtree)

${usage}`);
    return 2;
  }
  const t = target(action, positionals, usage);
  if (typeof t === 'string') { process.stderr.write(t); return 2; }
  const by = values.by ?? defaultPublisher();
  if (by.trim() === '') { process.stderr.write(`petal ${action}: --by must name someone\n`); return 2; }
  // An instant with its offset: a date without one would mean the reader's time zone, whatever that is.
  // The format first, before any store opens; how far ahead, once the configuration says.
  const atProblem = (problem: string) => {
    process.stderr.write(`petal ${action}: --at ${problem} (got ${JSON.stringify(values.at)})\n`);
    return 2;
  };
  const at = values.at !== undefined ? parseIsoInstant(values.at) : undefined;
  if (values.at !== undefined && at === undefined) {
    return atProblem('must be an ISO 8601 date-time on the calendar with its offset or Z, such as 2026-05-01T08:00:00+02:00');
  }
  const { store, url, config, publications = publishingStore(store) } = await open(values);
  try {
    if (values.at !== undefined && config?.publishing !== undefined) {
      const checked = publicationDate(values.at, new Date(), config.publishing.scheduleHorizonDays);
      if (!checked.ok) return atProblem(checked.problem);
    }
    if (config?.publishing === undefined) {
      const needs = action === 'unpublish' ? ['unpublish']
        : [recursive ? '--recursive' : '', comment !== undefined ? '--comment' : '', at !== undefined ? '--at' : ''].filter((f) => f !== '');
      if (needs.length > 0) {
        process.stderr.write(`petal ${action}: ${needs.join(', ')} needs the published state: set publishing: {enabled: true} in petal.yaml `
          + '(without it petal publish only stores a version of the node)\n');
        return 2;
      }
      // Publishing off: a version only, as before the two states existed.
      const v = await publications.publishVersion(t.workspace, t.path, by);
      if (v === undefined) { process.stderr.write(`petal publish: no node at ${t.workspace}:${t.path} in ${url}\n`); return 1; }
      process.stdout.write(`published ${t.workspace}:${t.path} as version ${v.name} (${v.nodes} nodes) by ${v.createdBy} into ${url}\n`);
      return 0;
    }
    let outcome: PublishOutcome;
    try {
      outcome = await requestPublication(publications, {
        // The operator's: no caller's rights to check, now or when a schedule runs.
        action, workspace: t.workspace, path: t.path, recursive, by, runAs: 'operator', ...(comment !== undefined ? { comment } : {}),
        ...(at !== undefined ? { at } : {}), takenAlong: takenAlongBy(new NodeTypeRegistry(config.nodeTypes)),
      });
    } catch (err) {
      if (!(err instanceof NodeWriteError)) throw err;
      process.stderr.write(`petal ${action}: ${refusal(err, t.workspace, t.path, url)}\n`);
      return 1;
    }
    process.stdout.write(`${describeOutcome(outcome, t.workspace, t.path, by)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

function refusal(err: NodeWriteError, workspace: string, path: string, url: string): string {
  switch (err.reason) {
    case 'missing': return `no node at ${workspace}:${path} in ${url}`;
    case 'parentNotPublished': {
      const parent = parentOf(path);
      return `parent ${workspace}:${parent} is not published yet: publish it first (petal publish ${workspace} ${parent})`;
    }
    default: return err.message;
  }
}

function nodes(n: number): string {
  return `${n} node${n === 1 ? '' : 's'}`;
}

export function describeOutcome(outcome: PublishOutcome, workspace: string, path: string, by: string): string {
  if (outcome.kind === 'scheduled') {
    const s = outcome.schedule;
    return `scheduled ${s.action}${s.recursive ? ' (recursive)' : ''} of ${workspace}:${path} for ${s.due} by ${s.by} (id ${s.id})`;
  }
  const { result } = outcome;
  if (outcome.action === 'unpublish') return `unpublished ${workspace}:${path} (${nodes(result.nodes)}) by ${by}`;
  const version = result.version !== undefined ? ` as version ${result.version.name}` : '';
  return `published ${workspace}:${path} (${nodes(result.nodes)})${version} by ${by}`;
}

export async function schedulesCommand(args: string[], open: StoreOpener): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { config: { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean' }, cancel: { type: 'string' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(SCHEDULES_USAGE); return 0; }
  if (positionals.length > 0) {
    process.stderr.write(`petal schedules: unexpected argument ${JSON.stringify(positionals[0])}\n\n${SCHEDULES_USAGE}`);
    return 2;
  }
  const { store } = await open(values, { readOnly: true }); // nothing to cancel in a store that is not there
  try {
    if (values.cancel !== undefined) {
      const gone = await store.schedules.cancel(values.cancel);
      if (gone === undefined) { process.stderr.write(`petal schedules: no schedule ${JSON.stringify(values.cancel)}\n`); return 1; }
      if (values.json) process.stdout.write(`${JSON.stringify(gone, null, 2)}\n`);
      else process.stdout.write(`cancelled ${gone.action} of ${gone.workspace}:${gone.path} due ${gone.due} (id ${gone.id})\n`);
      return 0;
    }
    const list = await store.schedules.list();
    if (values.json) {
      process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return 0;
    }
    if (list.length === 0) { process.stdout.write('no schedules\n'); return 0; }
    const rows = list.map((s) => [s.id, s.action + (s.recursive ? ' -r' : ''), `${s.workspace}:${s.path}`, s.due, s.by, s.error ?? '']);
    const header = ['ID', 'ACTION', 'WHERE', 'DUE', 'BY', 'ERROR'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const r of [header, ...rows]) process.stdout.write(`${r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ').trimEnd()}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
