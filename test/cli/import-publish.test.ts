// `petal import --publish` with publishing on (issue 17): each imported top-level node is published
// with its subtree into the published state, parents first; one whose parent is not published is a
// warning, and the import stands.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'petal-import-publish-')); });
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

it('publishes the imported roots into the published state, warning about a root whose parent is not published', async () => {
  const content = join(dir, 'content');
  mkdirSync(content);
  writeFileSync(join(content, 'website.site.yaml'), "'site':\n  'jcr:primaryType': 'mgnl:page'\n  'about':\n    'jcr:primaryType': 'mgnl:page'\n");
  writeFileSync(join(content, 'website.folder.page.yaml'), "'page':\n  'jcr:primaryType': 'mgnl:page'\n");
  const db = join(dir, 'petal.db');
  writeFileSync(join(dir, 'petal.yaml'), `store: sqlite:${db}\npublishing:\n  enabled: true\n`);
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { out += String(chunk); return true; });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { err += String(chunk); return true; });
  const code = await main(['import', '--config', join(dir, 'petal.yaml'), '--publish', '--by', 'ci', content]);
  vi.restoreAllMocks();
  expect(code).toBe(0);
  expect(out).toContain('published website:/site (2 nodes) as version 1.0 by ci');
  expect(err).toContain('website:/folder/page was not published');
  const store = new SqliteStore({ file: db });
  await store.open();
  try {
    expect((await store.getSubtree('website@published', '/site', 5)).map((n) => n.path)).toEqual(['/site', '/site/about']);
    expect(await store.getNode('website@published', '/folder/page')).toBeUndefined();
    expect(await store.getNode('website', '/folder/page')).toBeDefined();
  } finally {
    await store.close();
  }
});
