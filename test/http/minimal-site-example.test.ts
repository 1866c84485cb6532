// The README's front-end example: examples/minimal-site/petal.yaml, loaded unchanged by the loader
// `petal serve --config` uses (from a copy of the folder, so that its ./data and ./security stay out
// of the repository), answers every request the original's React and Vue minimal SPA demos make with
// the .env files they ship (host http://localhost:8080, base /magnoliaAuthor, sites /react-minimal
// and /vue-minimal, languages "en de"), in the shapes their code reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/main.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'minimal-site');
const BASE = '/magnoliaAuthor';
const PAGES = `${BASE}/.rest/delivery/pages/v1`;
const NAV = `${BASE}/.rest/delivery/pagenav/v1`;
const ANNOTATIONS = `${BASE}/.rest/template-annotations/v1`;
const FRONT_END = 'http://localhost:3000';

/** The template ids the demos' `componentMappings` render (react-minimal, vue-minimal). */
const COMPONENTS = ['headline', 'image', 'paragraph', 'list', 'listItem', 'expander'].map((c) => `spa-lm:components/${c}`);
const PAGE_TEMPLATES: Record<string, readonly string[]> = {
  '/react-minimal': ['react-minimal-lm:pages/basic', 'react-minimal-lm:pages/contact'],
  '/vue-minimal': ['vue-minimal-lm:pages/basic', 'vue-minimal-lm:pages/contact'],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let dir: string;
let server: RunningServer;
let app: FastifyInstance;
const warnings: string[] = [];

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers: { origin: FRONT_END, ...headers } });
  return { status: res.statusCode, headers: res.headers, raw: res.rawPayload, body: (res.statusCode < 300 && String(res.headers['content-type']).includes('json') ? res.json() : res.body) as Json };
}

/** Every child the `@nodes` of a node lists is present as a key, recursively; returns the nodes met. */
function walk(node: Json, seen: Json[] = []): Json[] {
  seen.push(node);
  expect(Array.isArray(node['@nodes']), `${node['@path']}: @nodes`).toBe(true);
  for (const name of node['@nodes'] as string[]) {
    expect(node[name], `${node['@path']}: child ${name}`).toBeTypeOf('object');
    walk(node[name] as Json, seen);
  }
  return seen;
}

/** What the demos read of a page: its template, `main` (and `extras`) areas, every component mapped. */
function expectRenderablePage(page: Json, site: string): Json[] {
  expect(page['@nodeType']).toBe('mgnl:page');
  expect(PAGE_TEMPLATES[site]).toContain(page['mgnl:template']);
  expect(page['@nodes']).toContain('main');
  expect(page.main['@nodeType']).toBe('mgnl:area');
  const components = walk(page).filter((n) => n['@nodeType'] === 'mgnl:component');
  expect(components.length).toBeGreaterThan(0);
  for (const c of components) expect(COMPONENTS, `${c['@path']}`).toContain(c['mgnl:template']);
  return components;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-minimal-site-'));
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !/[/\\](data|security)$/.test(src) });
  // As `petal serve --config <dir>/petal.yaml` would, without PETAL_* variables of the test run.
  const config = loadConfig({ config: join(dir, 'petal.yaml'), port: 0, host: '127.0.0.1' }, {});
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { warnings.push(chunk.toString()); done(); } });
  server = await startServer(config, pino({ level: 'warn' }, sink));
  app = server.app;
}, 60_000);
afterAll(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('examples/minimal-site', () => {
  it('starts without a warning: every endpoint, template and content file loads', () => {
    expect(warnings).toEqual([]);
  });

  it('React demo: the home page in both languages, with main and extras areas, every component mapped', async () => {
    const en = await get(`${PAGES}/react-minimal?lang=en`);
    expect(en.status).toBe(200);
    expect(en.headers['access-control-allow-origin']).toBe(FRONT_END);
    expect(en.body['@nodes']).toEqual(['main', 'extras']);
    expect(en.body.title).toBe('A minimal site');
    const components = expectRenderablePage(en.body, '/react-minimal');
    expect(components.map((c) => c['mgnl:template'])).toEqual(expect.arrayContaining(
      ['spa-lm:components/headline', 'spa-lm:components/image', 'spa-lm:components/paragraph', 'spa-lm:components/list', 'spa-lm:components/listItem']));
    const list = components.find((c) => c['mgnl:template'] === 'spa-lm:components/list')!;
    expect(list.items['@nodes']).toHaveLength(2);
    const de = await get(`${PAGES}/react-minimal?lang=de`);
    expect(de.body.title).toBe('Eine minimale Website');
    expect(de.body.main['0'].text).toBe('Von Petal ausgeliefert');
  });

  it('React demo: child pages at the paths the editor helper builds, with the query params it adds', async () => {
    const contact = await get(`${PAGES}/react-minimal/contact?mgnlPreview=false&mgnlChannel=desktop&variants=all&lang=de`);
    expect(contact.status).toBe(200);
    expect(contact.body['mgnl:template']).toBe('react-minimal-lm:pages/contact');
    expect(contact.body.title).toBe('Kontakt');
    expectRenderablePage(contact.body, '/react-minimal');
    const about = await get(`${PAGES}/react-minimal/about?lang=en`);
    expectRenderablePage(about.body, '/react-minimal');
  });

  it('navigation (pagenav, no lang): the site root with its child pages, each with @id, @path, title and @nodes', async () => {
    for (const site of ['/react-minimal', '/vue-minimal']) {
      const nav = await get(`${NAV}${site}`);
      expect(nav.status).toBe(200);
      expect(nav.body['@path']).toBe(site);
      expect(nav.body['@nodes'].length).toBeGreaterThan(0);
      for (const name of nav.body['@nodes'] as string[]) {
        const item = nav.body[name] as Json;
        expect(item['@path']).toBe(`${site}/${name}`);
        expect(item['@id']).toMatch(/^[0-9a-f-]{36}$/);
        expect(item.title).toBeTypeOf('string');
        expect(item['@nodes']).toEqual([]);
        expect(item.main).toBeUndefined(); // pages only
      }
    }
    expect((await get(`${NAV}/react-minimal`)).body['@nodes']).toEqual(['about', 'contact']);
  });

  it('the image: its @link (the React and Vue demos prefix the host) and the Next.js form /dam/<@id><@path> serve the PNG', async () => {
    const page = (await get(`${PAGES}/react-minimal?lang=en`)).body;
    const image = page.main['1'].image as Json;
    expect(image['@link']).toMatch(/^\/magnoliaAuthor\/dam\/jcr:[0-9a-f-]{36}\/flower\.png$/);
    expect(image.metadata).toMatchObject({ fileName: 'flower.png', width: '24', height: '24' });
    for (const url of [image['@link'] as string, `${BASE}/dam/${image['@id']}${image['@path']}`]) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.raw.subarray(1, 4).toString()).toBe('PNG');
    }
  });

  it('template annotations (the editor mode): the page, its areas and components, keyed by path', async () => {
    for (const [path, search] of [['/react-minimal', '?mgnlPreview=false&mgnlChannel=desktop&lang=en'], ['/vue-minimal/contact', '']] as const) {
      const res = await get(`${ANNOTATIONS}${path}${search}`);
      expect(res.status).toBe(200);
      expect(res.body[path]).toMatch(/^cms:page /);
      expect(res.body[`${path}/main`]).toMatch(/^cms:area name="main"/);
      expect(res.body[`${path}/main/0`]).toMatch(/^cms:component .*dialog="spa-lm:components\//);
    }
  });

  it('Vue demo: its site, mapped to the vue-minimal-lm page templates', async () => {
    const home = await get(`${PAGES}/vue-minimal?lang=en`);
    expect(home.status).toBe(200);
    expect(home.body['mgnl:template']).toBe('vue-minimal-lm:pages/basic');
    expect(home.body['@nodes']).toEqual(['main', 'extras']);
    expectRenderablePage(home.body, '/vue-minimal');
    expect(home.body.main['0'].image['@link']).toMatch(/^\/magnoliaAuthor\/dam\/jcr:/);
    const contact = await get(`${PAGES}/vue-minimal/contact?lang=de`);
    expect(contact.body.title).toBe('Kontakt');
    expectRenderablePage(contact.body, '/vue-minimal');
  });

  it('a page the site does not have is a JSON 404, not an empty page', async () => {
    const res = await get(`${PAGES}/react-minimal/no-such-page?lang=en`);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body as unknown as string)).toEqual({ error: { code: 'pathNotFound', message: '/react-minimal/no-such-page' } });
  });
});
