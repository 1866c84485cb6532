// Hot reload through the running server: adding, changing, breaking and deleting a definition file
// takes effect without a restart; a broken file keeps serving its last good version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import type { PetalConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { OPEN_SECURITY } from '../helpers/test-app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/render/', import.meta.url));

let dir: string;
let server: RunningServer;
let endpoints: string;

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not reached in time');
}

async function status(path: string): Promise<number> {
  return (await fetch(server.url + path)).status;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-reload-'));
  endpoints = join(dir, 'modules', 'm', 'restEndpoints', 'delivery');
  mkdirSync(endpoints, { recursive: true });
  writeFileSync(join(endpoints, 'pages_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n');
  const config: PetalConfig = {
    store: `sqlite:${join(dir, 'petal.db')}`, modules: [join(dir, 'modules')], content: [FIXTURES], port: 0, host: '127.0.0.1',
    namespace: 'cms', contextPath: '', sites: [], corsOrigins: [], logLevel: 'silent', onUuidCollision: 'new', nodeTypes: {},
    security: loadSecurity(OPEN_SECURITY, dir), links: { contextPath: '', extension: '', mappings: [] }, trustProxy: false, isDemo: false,
  };
  server = await startServer(config, pino({ level: 'silent' }));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hot reload of endpoint definitions', () => {
  it('serves a definition added after start', async () => {
    expect(await status('/.rest/delivery/news/v1/site')).toBe(404);
    writeFileSync(join(endpoints, 'news_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n');
    await until(async () => (await status('/.rest/delivery/news/v1/site')) === 200);
  });

  it('applies a change, keeps the last good version of a broken file, and drops a deleted one', async () => {
    writeFileSync(join(endpoints, 'news_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\nrootPath: /site\n');
    await until(async () => (await status('/.rest/delivery/news/v1/about')) === 200);
    writeFileSync(join(endpoints, 'news_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: [broken\n');
    await new Promise((r) => setTimeout(r, 600));
    expect(await status('/.rest/delivery/news/v1/about')).toBe(200);
    unlinkSync(join(endpoints, 'news_v1.yaml'));
    await until(async () => (await status('/.rest/delivery/news/v1/about')) === 404);
    expect(await status('/.rest/delivery/pages/v1/site')).toBe(200);
  });
});

describe('hot reload of template definitions', () => {
  it('a template changed after start takes effect on the next answer (pages features)', async () => {
    writeFileSync(join(endpoints, 'pagesp_v1.yaml'), '$type: jcrPagesDeliveryEndpoint_v2\nchildNodeTypes: [mgnl:area, mgnl:component, mgnl:contentNode]\n');
    await until(async () => (await status('/.rest/delivery/pagesp/v1/site')) === 200);
    const before = await (await fetch(`${server.url}/.rest/delivery/pagesp/v1/site`)).json() as { '@nodes': string[] };
    expect(before['@nodes']).not.toContain('promo');
    const templates = join(dir, 'modules', 'test', 'templates', 'pages');
    mkdirSync(templates, { recursive: true });
    writeFileSync(join(templates, 'home.yaml'), 'areas:\n  promo:\n    autoGeneration:\n      content:\n        banner: { templateId: test:components/text, text: Reloaded }\n');
    await until(async () => {
      const body = await (await fetch(`${server.url}/.rest/delivery/pagesp/v1/site`)).json() as Record<string, any>;
      return body.promo?.banner?.text === 'Reloaded';
    });
  });
});
