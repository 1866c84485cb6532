// `petal serve` with publishing enabled runs the schedules that are due (main.ts starts the scheduler
// once listening, and stops it, waiting for a run in progress, before the store closes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { PetalConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { publishedWorkspace } from '../../src/model/workspaces.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { OPEN_SECURITY } from '../helpers/test-app.js';
import { importDocuments } from '../../src/repository/writes.js';

let dir: string | undefined;
let server: RunningServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Waits for a condition the server reaches on its own (its first poll runs as it starts). */
async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not reached in time');
}

describe('serve with publishing enabled', () => {
  it('runs a schedule that fell due while no server was running', async () => {
    dir = mkdtempSync(join(tmpdir(), 'h-sched-serve-'));
    const file = join(dir, 'petal.db');
    const setup = new SqliteStore({ file });
    await setup.open();
    try {
      await importDocuments(setup, [document('website', '/', [draft('travel', { type: 'cms:page' })])], NEW);
      await setup.schedules.add({ action: 'publish', workspace: 'website', path: '/travel', recursive: false, by: 'alice', runAs: 'operator', due: '2020-01-01T00:00:00.000Z' });
    } finally {
      await setup.close();
    }
    const config: PetalConfig = {
      store: `sqlite:${file}`, modules: [], content: [], port: 0, host: '127.0.0.1', namespace: 'cms', contextPath: '', sites: [],
      corsOrigins: [], logLevel: 'silent', onUuidCollision: 'new', nodeTypes: {}, security: loadSecurity(OPEN_SECURITY, dir),
      links: { contextPath: '', extension: '', mappings: [] }, trustProxy: false, isDemo: false, publishing: { previewContextPath: '/preview', previewRoles: ['editor'], scheduleIntervalMs: 200, scheduleHorizonDays: 366 },
    };
    server = await startServer(config, pino({ level: 'silent' }));
    const reader = new SqliteStore({ file });
    await reader.open();
    try {
      await until(async () => (await reader.schedules.list()).length === 0);
      expect(await reader.reads.getNode(publishedWorkspace('website'), '/travel')).toBeDefined();
    } finally {
      await reader.close();
    }
  });
});
