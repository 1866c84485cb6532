// `petal init --magnolia` writes a petal.yaml with which the travel-spa light modules and content serve
// a front end written for the original CMS unchanged: pages under /magnoliaAuthor with mgnl: names,
// CORS for the dev server, images and renditions readable by anonymous callers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { initCommand, workspacesToRead } from '../../src/init-magnolia.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';

const SPA = join(CORPORA, 'travel-spa', 'magnolia');
const FRONT = 'http://localhost:3000';

// Skipped where the original CMS's corpora are absent (PETAL_CORPORA; test/helpers/corpora.ts warns); CI beside ../shared runs it.
describe.skipIf(!CORPORA_AVAILABLE)('petal init --magnolia for the travel-spa', () => {
  let dir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'petal-init-'));
    const out = process.stdout.write.bind(process.stdout);
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      expect(await initCommand(['--magnolia', '--modules', join(SPA, 'light-modules'), '--content', join(SPA, '_dev')], dir)).toBe(0);
    } finally {
      process.stdout.write = out;
    }
    const config = loadConfig({ config: join(dir, 'petal.yaml'), store: `sqlite:${join(dir, 'petal.db')}`, port: 0, host: '127.0.0.1', logLevel: 'silent' });
    server = await startServer(config, pino({ level: 'silent' }));
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to overwrite the file without --force', async () => {
    await expect(initCommand(['--magnolia', '--modules', join(SPA, 'light-modules')], dir)).rejects.toThrow(/exists; use --force/);
    expect(readFileSync(join(dir, 'petal.yaml'), 'utf8')).toContain('namespace: mgnl');
  });

  it('serves the pages under the context path with mgnl: names to the front end, CORS included', async () => {
    // server.url ends with the context path; links are absolute paths.
    const origin = new URL(server.url).origin;
    expect(server.url).toBe(`${origin}/magnoliaAuthor`);
    const res = await fetch(`${origin}/magnoliaAuthor/.rest/delivery/pages/v1/react-minimal?lang=de`, { headers: { origin: FRONT } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(FRONT);
    const page = await res.json() as Record<string, any>;
    expect(page['@nodeType']).toBe('mgnl:page');
    expect(page['mgnl:template']).toBe('react-minimal-lm:pages/basic');
    const image = page.main['00'].image;
    expect(image['@link']).toMatch(/^\/magnoliaAuthor\/dam\/jcr:/);
    const original = await fetch(`${origin}${image['@link']}`, { headers: { origin: FRONT } });
    expect(original.status, `${image['@link']}: ${await original.clone().text()}`).toBe(200);
    expect(original.headers.get('content-type')).toMatch(/^image\//);
    for (const r of Object.values(image.renditions ?? {}) as { link: string }[]) {
      expect((await fetch(`${origin}${r.link}`)).status, r.link).toBe(200);
    }
    const nav = await fetch(`${origin}/magnoliaAuthor/.rest/delivery/pagenav/v1/react-minimal@nodes`);
    expect(nav.status).toBe(200);
    expect((await fetch(`${origin}/magnoliaAuthor/.health`)).status).toBe(200);
  });

  it('grants anonymous read on dam and on what endpoints read with workspace permissions', () => {
    const def = (workspace: string, bypassWorkspaceAcls: boolean, target?: string) => ({
      workspace, bypassWorkspaceAcls, endpointPath: '/delivery/x',
      references: target === undefined ? [] : [{ propertyName: 'p', resolver: { kind: 'jcrReferenceResolver', targetWorkspace: target } }],
    });
    // Only the fields workspacesToRead looks at.
    const defs = [def('website', true, 'secret'), def('tours', false, 'category')] as unknown as Parameters<typeof workspacesToRead>[0];
    expect(workspacesToRead(defs)).toEqual(['category', 'dam', 'tours']);
  });
});
