// `petal export`: to standard output or a file (a folder gets the name import expects), usage errors
// (exit 2), a missing node (exit 1), and the file imports back.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { exportCommand } from '../../src/export/export-command.js';
import { target } from '../../src/ingest/version-commands.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { StoreOpener } from '../../src/ingest/version-commands.js';
import { ExportError } from '../../src/export/export-error.js';

const EXPORT = "'home':\n  'jcr:primaryType': 'mgnl:page'\n  'jcr:uuid': 'aaaaaaaa-0000-0000-0000-000000000001'\n  'title': 'Home'\n"
  + "  'about':\n    'jcr:primaryType': 'mgnl:page'\n    'jcr:uuid': 'aaaaaaaa-0000-0000-0000-000000000002'\n";

let dir: string;
let db: string;
const opened: string[] = [];
const open: StoreOpener = async (flags) => {
  opened.push(flags.store ?? '');
  const store = new SqliteStore({ file: db });
  await store.open();
  return { store, url: `sqlite:${db}` };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-export-cli-'));
  db = join(dir, 'petal.db');
  writeFileSync(join(dir, 'website.site.home.yaml'), EXPORT);
  // A property and a child node of one name: the system view holds both, YAML cannot.
  writeFileSync(join(dir, 'website.twin.xml'), '<sv:node sv:name="twin" xmlns:sv="http://www.jcp.org/jcr/sv/1.0">'
    + '<sv:property sv:name="x" sv:type="String"><sv:value>p</sv:value></sv:property><sv:node sv:name="x"/></sv:node>');
  const store = new SqliteStore({ file: db });
  await store.open();
  await importPaths(store, [join(dir, 'website.site.home.yaml'), join(dir, 'website.twin.xml')], { onUuidCollision: 'fail' });
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function capture(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    out += String(chunk);
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    done?.();
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { err += String(chunk); return true; });
  return { out: () => out, err: () => err };
}

describe('petal export', () => {
  it('writes YAML to standard output by default', async () => {
    const io = capture();
    expect(await exportCommand(['website', '/site/home', '--store', 'sqlite:x'], open)).toBe(0);
    expect(io.out()).toBe('"home":\n  "jcr:primaryType": "mgnl:page"\n  "jcr:uuid": "aaaaaaaa-0000-0000-0000-000000000001"\n'
      + '  "title": "Home"\n  "about":\n    "jcr:primaryType": "mgnl:page"\n    "jcr:uuid": "aaaaaaaa-0000-0000-0000-000000000002"\n');
    expect(opened.at(-1)).toBe('sqlite:x');
  });

  it('--out FOLDER gets <workspace>.<path>.<format>, which imports back; --out FILE is that file', async () => {
    const folder = join(dir, 'out');
    mkdirSync(folder);
    const io = capture();
    expect(await exportCommand(['website', 'site/home', '--format', 'xml', '--out', folder], open)).toBe(0);
    const file = join(folder, 'website.site.home.xml');
    expect(readFileSync(file, 'utf8')).toContain('<sv:node sv:name="home"');
    expect(io.err()).toContain(`exported website:/site/home to ${file}`);
    expect(await exportCommand(['website', '/', '--out', join(dir, 'all.xml')], open)).toBe(0);
    expect(readFileSync(join(dir, 'all.xml'), 'utf8')).toContain('<sv:node sv:name="jcr:root"');

    const back = new SqliteStore({ file: join(dir, 'back.db') });
    await back.open();
    try {
      await importPaths(back, [file], { onUuidCollision: 'fail' });
      const check = new SqliteStore({ file: db });
      await check.open();
      expect(await back.reads.getSubtree('website', '/site/home', 5)).toEqual(await check.reads.getSubtree('website', '/site/home', 5));
      await check.close();
    } finally {
      await back.close();
    }
  });

  it('exits 2 on usage errors and 1 for a missing node or a whole workspace as YAML, writing no file', async () => {
    const io = capture();
    expect(await exportCommand(['website'], open)).toBe(2);
    expect(await exportCommand(['website', '/site', '--format', 'json'], open)).toBe(2);
    expect(io.err()).toContain('--format must be yaml or xml, not "json"');
    expect(await exportCommand(['website', '/site/nope', '--out', join(dir, 'nope.yaml')], open)).toBe(1);
    expect(io.err()).toContain('no node at website:/site/nope');
    expect(existsSync(join(dir, 'nope.yaml'))).toBe(false);
    expect(await exportCommand(['website', '/', '--format', 'yaml'], open)).toBe(1);
    expect(io.err()).toContain('a whole workspace exports as xml only');
    // Workspace names follow the one pattern (model/names.ts), as for publish, unpublish and versions.
    for (const ws of ['WEBSITE', 'web.site', '*']) {
      expect(await exportCommand([ws, '/site'], open), ws).toBe(2);
      expect(io.err()).toContain(`invalid workspace ${JSON.stringify(ws)}: a workspace name is a lowercase letter`);
      expect(target('publish', [ws, '/site'], '')).toContain(`petal publish: invalid workspace ${JSON.stringify(ws)}: a workspace name is`);
    }
  });

  it('fails with an ExportError and leaves no file when YAML cannot hold the content; xml can', async () => {
    capture();
    const file = join(dir, 'website.twin.yaml');
    await expect(exportCommand(['website', '/twin', '--out', file], open)).rejects.toThrow(ExportError);
    await expect(exportCommand(['website', '/twin', '--out', file], open)).rejects.toThrow('both named "x"');
    expect(existsSync(file)).toBe(false);
    expect(await exportCommand(['website', '/twin', '--format', 'xml', '--out', join(dir, 'website.twin.xml')], open)).toBe(0);
  });
});
