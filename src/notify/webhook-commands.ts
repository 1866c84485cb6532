// Notify layer (CLI): `petal webhooks list | log | retry`, over the store's webhook cursors and delivery
// log (store/webhook-log.ts) and the webhooks of petal.yaml. The store comes from the caller (cli.ts).
import { parseArgs } from 'node:util';
import type { PetalConfig } from '../config/load-config.js';
import type { ContentStore } from '../store/content-store.js';
import { DELIVERIES_PAGE_MAX, type WebhookDelivery } from '../store/webhook-log.js';
import { postWebhook, webhookTargets, WebhookSecretError } from './post-webhook.js';

export type WebhookStoreOpener = (flags: { config?: string; store?: string }, options?: { readOnly?: boolean }) => Promise<{
  store: ContentStore; url: string; config?: Pick<PetalConfig, 'webhooks'>;
}>;

export const WEBHOOKS_USAGE = `Usage: petal webhooks list | log | retry ID [--store URL] [--config FILE]
  list               the webhooks of petal.yaml: where each is in the change log, and a delivery
                     being retried
  log [--failed] [--webhook NAME] [--limit N] [--json]
                     deliveries, newest attempt first (default 20, at most ${DELIVERIES_PAGE_MAX});
                     --failed: those given up after 24 h of retries
  retry ID           sends a delivery (a failed one, or a delivered one again) once now, signed anew,
                     and records the outcome; exits 1 when it fails again
`;

const COUNT = /^[0-9]{1,6}$/;

export async function webhooksCommand(args: string[], open: WebhookStoreOpener): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean' }, failed: { type: 'boolean' },
      webhook: { type: 'string' }, limit: { type: 'string' }, help: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(WEBHOOKS_USAGE); return 0; }
  const fail = (message: string): number => { process.stderr.write(`petal webhooks: ${message}\n\n${WEBHOOKS_USAGE}`); return 2; };
  const [sub, ...more] = positionals;
  const expected = sub === 'retry' ? 1 : 0;
  if (sub !== 'list' && sub !== 'log' && sub !== 'retry') return fail(sub === undefined ? 'list, log or retry?' : `unknown subcommand ${JSON.stringify(sub)}`);
  if (more.length !== expected) return fail(sub === 'retry' ? 'retry takes one delivery ID' : `unexpected argument ${JSON.stringify(more[0])}`);
  const limit = values.limit ?? '20';
  if (!COUNT.test(limit) || Number(limit) < 1 || Number(limit) > DELIVERIES_PAGE_MAX) return fail(`--limit must be a whole number from 1 to ${DELIVERIES_PAGE_MAX}, not ${JSON.stringify(limit)}`);
  const { store, config } = await open(values, { readOnly: sub !== 'retry' });
  try {
    if (sub === 'list') return await list(store, config?.webhooks ?? [], values.json === true);
    if (sub === 'log') {
      const rows = await store.webhooks.deliveries({
        limit: Number(limit), ...(values.failed ? { status: 'failed' as const } : {}), ...(values.webhook !== undefined ? { webhook: values.webhook } : {}),
      });
      if (values.json) process.stdout.write(`${JSON.stringify(rows.map(withPayload), null, 2)}\n`);
      else if (rows.length === 0) process.stdout.write(values.failed ? 'no failed deliveries\n' : 'no deliveries\n');
      else table(['ID', 'STATUS', 'EVENT', 'ATTEMPTS', 'LAST ATTEMPT', 'ERROR'], rows.map((d) => [d.id, d.status, d.event, String(d.attempts), d.lastAttemptAt, d.status === 'delivered' ? '' : d.lastError ?? '']));
      return 0;
    }
    return await retry(store, config?.webhooks ?? [], more[0]!, values.json === true);
  } finally {
    await store.close();
  }
}

async function list(store: ContentStore, hooks: NonNullable<PetalConfig['webhooks']>, json: boolean): Promise<number> {
  const cursors = new Map((await store.webhooks.cursors()).map((c) => [c.name, c]));
  const latest = await store.changes.latest();
  const rows = [];
  for (const h of hooks) {
    const [retrying] = await store.webhooks.deliveries({ webhook: h.name, status: 'pending', limit: 1 });
    rows.push({ name: h.name, url: h.url, events: h.events ?? 'all', cursor: cursors.get(h.name)?.sequence, latest, ...(retrying ? { retrying } : {}) });
  }
  // A webhook removed from petal.yaml keeps its cursor: put back, it resumes where it stopped.
  const unconfigured = [...cursors.values()].filter((c) => !hooks.some((h) => h.name === c.name)).map((c) => c.name);
  if (json) {
    process.stdout.write(`${JSON.stringify({ webhooks: rows, unconfigured }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) process.stdout.write('no webhooks in petal.yaml\n');
  else {
    table(['NAME', 'URL', 'EVENTS', 'AT', 'RETRYING'], rows.map((r) => [r.name, r.url, Array.isArray(r.events) ? r.events.join(',') : 'all',
      r.cursor === undefined ? 'not started' : `${r.cursor}/${latest}`,
      r.retrying ? `${r.retrying.id} (attempt ${r.retrying.attempts}: ${r.retrying.lastError ?? '?'}; next ${r.retrying.nextAttemptAt ?? '?'})` : '']));
  }
  if (unconfigured.length > 0) process.stdout.write(`cursors of webhooks no longer in petal.yaml: ${unconfigured.join(', ')}\n`);
  return 0;
}

async function retry(store: ContentStore, hooks: NonNullable<PetalConfig['webhooks']>, id: string, json: boolean): Promise<number> {
  const before = await store.webhooks.delivery(id);
  if (before === undefined) { process.stderr.write(`petal webhooks: no delivery ${JSON.stringify(id)}\n`); return 1; }
  if (before.status === 'pending') {
    process.stderr.write(`petal webhooks: ${id} is still being retried by petal serve (next attempt ${before.nextAttemptAt ?? 'soon'})\n`);
    return 1;
  }
  const config = hooks.find((h) => h.name === before.webhook);
  if (config === undefined) { process.stderr.write(`petal webhooks: webhook ${before.webhook} is not in petal.yaml\n`); return 1; }
  let target;
  try {
    [target] = webhookTargets([config]);
  } catch (err) {
    if (err instanceof WebhookSecretError) { process.stderr.write(`petal webhooks: ${err.message}\n`); return 1; }
    throw err;
  }
  const result = await postWebhook(target!, before.id, before.body);
  const at = new Date().toISOString();
  const { lastError: _lastError, nextAttemptAt: _next, ...rest } = before;
  const after: WebhookDelivery = result.ok
    ? { ...rest, attempts: before.attempts + 1, lastAttemptAt: at, status: 'delivered', deliveredAt: at }
    : { ...rest, attempts: before.attempts + 1, lastAttemptAt: at, lastError: result.error };
  await store.webhooks.saveDelivery(after);
  if (json) process.stdout.write(`${JSON.stringify(withPayload(after), null, 2)}\n`);
  else process.stdout.write(result.ok ? `delivered ${id} to ${config.url}\n` : `${id} failed again: ${result.error}\n`);
  return result.ok ? 0 : 1;
}

/** The stored body as the JSON it is, for --json readers. */
function withPayload(d: WebhookDelivery): Omit<WebhookDelivery, 'body'> & { payload: unknown } {
  const { body, ...rest } = d;
  return { ...rest, payload: JSON.parse(body) as unknown };
}

function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [header, ...rows]) process.stdout.write(`${r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ').trimEnd()}\n`);
}
