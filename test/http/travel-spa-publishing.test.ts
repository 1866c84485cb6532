// Issue 17: the travel-spa React front end's two modes against one Petal, served by the documented
// examples/travel-spa/petal.yaml unchanged (its folders linked beside a copy, as the README says): the
// live mode's requests under /magnoliaPublic read only what was published, the preview mode's under
// /magnoliaAuthor (mgnlPreview, mgnlChannel, variants, template annotations) the working content.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { basic, hashOf } from '../security-http/helpers.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'travel-spa', 'petal.yaml');
const SPA = join(CORPORA, 'travel-spa', 'magnolia');
const PW = 'travel-spa-editor-password';
const SITE = '/react-minimal';

let dir: string;
let server: RunningServer;
let app: FastifyInstance;
const ed = () => ({ authorization: basic('ed', PW) });

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body: any = res.statusCode < 300 ? res.json() : res.body;
  return { status: res.statusCode, headers: res.headers, body };
}
async function publish(repository: string, path: string) {
  const res = await app.inject({ method: 'POST', url: '/magnoliaPublic/.rest/commands/v2/activate', headers: ed(), payload: { repository, path, recursive: true } });
  expect(res.statusCode, res.body).toBe(200);
}

// Skipped only on a machine without ../shared/corpora (test/helpers/corpora.ts warns); CI has them.
describe.skipIf(!CORPORA_AVAILABLE)('travel-spa, live and preview from one Petal', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'petal-travel-spa-'));
    copyFileSync(EXAMPLE, join(dir, 'petal.yaml'));
    symlinkSync(join(SPA, 'light-modules'), join(dir, 'light-modules'));
    symlinkSync(join(SPA, '_dev'), join(dir, '_dev'));
    mkdirSync(join(dir, 'security'));
    writeFileSync(join(dir, 'security', 'users.yaml'), `users:\n  ed:\n    passwordHash: '${await hashOf(PW)}'\n    roles: [editor]\n`);
    // The file names no store (the default is data/petal.db beside it): a fresh one here, named.
    const config = loadConfig({ config: join(dir, 'petal.yaml'), store: `sqlite:${join(dir, 'petal.db')}`, port: 0, host: '127.0.0.1' }, {});
    server = await startServer(config, pino({ level: 'silent' }));
    app = server.app;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('live mode sees nothing before the site is published; preview mode sees the working pages', async () => {
    expect((await get(`/magnoliaPublic/.rest/delivery/pages/v1${SITE}`)).status).toBe(404);
    const preview = await get(`/magnoliaAuthor/.rest/delivery/pages/v1${SITE}?mgnlPreview=true&mgnlChannel=desktop&variants=all&lang=en`);
    expect(preview.status).toBe(200);
    expect(preview.body['@nodes']).toEqual(['main', 'extras']);
    expect(preview.headers['cache-control']).toBe('private, no-store');
    expect(preview.body.main['00'].image['@link']).toMatch(/^\/magnoliaAuthor\/dam\/jcr:/);
    const nav = await get(`/magnoliaAuthor/.rest/delivery/pagenav/v1${SITE}`);
    expect(nav.status).toBe(200);
    const annotations = await get(`/magnoliaAuthor/.rest/template-annotations/v1${SITE}?lang=de`);
    expect(annotations.status).toBe(200);
    expect(Object.keys(annotations.body)).toContain(SITE);
  });

  it('live mode serves the site, its navigation, German content and images once published', async () => {
    await publish('website', SITE);
    for (const asset of ['/destinations', '/svg-icons', '/tour-types', '/tours']) await publish('dam', asset);
    const page = await get(`/magnoliaPublic/.rest/delivery/pages/v1${SITE}`);
    expect(page.status).toBe(200);
    expect(page.body['@nodes']).toEqual(['main', 'extras']);
    expect(page.body['mgnl:activationStatus']).toBeUndefined(); // pages_v1 shows no system properties but the template
    const link = page.body.main['00'].image['@link'] as string;
    expect(link).toMatch(/^\/magnoliaPublic\/dam\/jcr:/);
    const image = await app.inject({ method: 'GET', url: link });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toMatch(/^image\//);
    const de = await get(`/magnoliaPublic/.rest/delivery/pages/v1${SITE}?lang=de`);
    expect(de.status).toBe(200);
    expect(de.headers['content-language']).toBe('de');
    const nav = await get(`/magnoliaPublic/.rest/delivery/pagenav/v1${SITE}`);
    expect(nav.status).toBe(200);
    expect(nav.body['@nodes'].length).toBeGreaterThan(0);
  });

  it('preview mode shows an edit at once; live mode after its publication', async () => {
    const edit = await app.inject({
      method: 'POST', url: `/magnoliaAuthor/.rest/nodes/v1/website${SITE}`, headers: ed(),
      payload: { name: 'react-minimal', properties: [{ name: 'title', type: 'String', multiple: false, values: ['Edited title'] }] },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect((await get(`/magnoliaAuthor/.rest/delivery/pages/v1${SITE}?mgnlPreview=true`)).body.title).toBe('Edited title');
    expect((await get(`/magnoliaPublic/.rest/delivery/pages/v1${SITE}`)).body.title).not.toBe('Edited title');
    // A component changed since its publication shows as modified in the page editor's annotations.
    const component = `${SITE}/main/00`;
    const note = await app.inject({
      method: 'POST', url: `/magnoliaAuthor/.rest/nodes/v1/website${component}`, headers: ed(),
      payload: { name: '00', properties: [{ name: 'note', type: 'String', multiple: false, values: ['changed'] }] },
    });
    expect(note.statusCode, note.body).toBe(200);
    const annotations = await get(`/magnoliaAuthor/.rest/template-annotations/v1${SITE}`);
    expect(annotations.body[component]).toContain('activationStatus="1"');
    await publish('website', SITE);
    expect((await get(`/magnoliaPublic/.rest/delivery/pages/v1${SITE}`)).body.title).toBe('Edited title');
    expect((await get(`/magnoliaAuthor/.rest/template-annotations/v1${SITE}`)).body[component]).toContain('activationStatus="2"');
  });
});
