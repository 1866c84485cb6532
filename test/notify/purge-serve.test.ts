// `petal serve` with `cdn.purge` targets (main.ts): a missing token variable stops the start, a change
// committed by another process (here another store on the same SQLite file) is purged while serving,
// and close() purges what was committed before it, then stops; a reload of the endpoint definitions
// purges every endpoint's key.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { changeKeys, endpointKey } from '../../src/repository/dependencies.js';
import type { PetalConfig } from '../../src/config/load-config.js';
import type { PurgeTarget } from '../../src/config/notify-config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { OPEN_SECURITY } from '../helpers/test-app.js';
import { allKeys, startReceiver, type PurgeReceiver } from './purge-receiver.js';
import { importDocuments } from '../../src/repository/writes.js';

let dir: string | undefined;
let server: RunningServer | undefined;
let receiver: PurgeReceiver | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  await receiver?.close();
  receiver = undefined;
  delete process.env.H_PURGE_SERVE_TOKEN;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function config(file: string, purge: PurgeTarget[]): PetalConfig {
  return {
    store: `sqlite:${file}`, modules: [], content: [], port: 0, host: '127.0.0.1', namespace: 'cms', contextPath: '', sites: [],
    corsOrigins: [], logLevel: 'silent', onUuidCollision: 'new', nodeTypes: {}, security: loadSecurity(OPEN_SECURITY, dir!),
    links: { contextPath: '', extension: '', mappings: [] }, trustProxy: false, isDemo: false, cdn: { tagHeader: 'none', purge },
  };
}

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A change committed by another store on the file; its events' keys. */
async function changeFrom(file: string, name: string): Promise<Set<string>> {
  const other = new SqliteStore({ file });
  await other.open();
  try {
    const before = await other.changes.latest();
    await importDocuments(other, [document('website', '/', [draft(name, { type: 'cms:page' })])], NEW);
    return new Set((await other.changes.since(before, 100)).flatMap((e) => [...changeKeys(e)]));
  } finally {
    await other.close();
  }
}

describe('serve with cdn.purge', () => {
  it('refuses to start when a target\'s token variable is not set, naming it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'h-purge-serve-'));
    await expect(startServer(config(join(dir, 'petal.db'), [{ type: 'fastly', serviceId: 'S', tokenEnv: 'H_PURGE_SERVE_TOKEN' }]), pino({ level: 'silent' })))
      .rejects.toThrow(/H_PURGE_SERVE_TOKEN, which is not set/);
  });

  it('purges another process\'s change while serving, and on close what was committed just before', async () => {
    dir = mkdtempSync(join(tmpdir(), 'h-purge-serve-'));
    const file = join(dir, 'petal.db');
    receiver = await startReceiver();
    process.env.H_PURGE_SERVE_TOKEN = 'serve-token';
    server = await startServer(config(file, [{ type: 'fastly', serviceId: 'S', tokenEnv: 'H_PURGE_SERVE_TOKEN', baseUrl: receiver.url }]), pino({ level: 'silent' }));

    const first = await changeFrom(file, 'one');
    await until(() => receiver!.calls.length > 0);
    expect(allKeys(receiver.calls)).toEqual(first);
    expect(receiver.calls[0]!.headers['fastly-key']).toBe('serve-token');

    const seen = receiver.calls.length;
    const last = await changeFrom(file, 'two');
    await server.close();
    server = undefined;
    expect(allKeys(receiver.calls.slice(seen))).toEqual(last);
  });
});

describe('serve with cdn.purge and light modules', () => {
  it('purges every endpoint\'s key when the endpoint definitions are reloaded', async () => {
    dir = mkdtempSync(join(tmpdir(), 'h-purge-serve-'));
    const endpoints = join(dir, 'modules', 'm', 'restEndpoints', 'delivery');
    mkdirSync(endpoints, { recursive: true });
    writeFileSync(join(endpoints, 'pages_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n');
    receiver = await startReceiver();
    process.env.H_PURGE_SERVE_TOKEN = 'serve-token';
    server = await startServer({
      ...config(join(dir, 'petal.db'), [{ type: 'fastly', serviceId: 'S', tokenEnv: 'H_PURGE_SERVE_TOKEN', baseUrl: receiver.url }]),
      modules: [join(dir, 'modules')],
    }, pino({ level: 'silent' }));
    writeFileSync(join(endpoints, 'pages_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\n');
    await until(() => allKeys(receiver!.calls).has(endpointKey('/delivery/pages/v1')), 15_000);
  });
});
