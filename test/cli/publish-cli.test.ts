// The publishing commands of `petal` (issue 17), in process: `petal import --publish` with publishing
// on publishes each imported top-level node with its subtree, parents first (one whose parent is not
// published is a warning, and the import stands); with publishing off, unpublish is refused with what to
// set; a bad --at is refused before the store opens; help names the commands.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';

let dir: string;

/** Runs `petal args` in this process: its exit code and what it wrote. */
async function petal(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await runCli(args, { cwd: dir });
  return { code: r.code, out: r.stdout, err: r.stderr };
}
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'petal-import-publish-')); });
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('publishes the imported roots into the published state, warning about a root whose parent is not published', async () => {
  const content = join(dir, 'content');
  mkdirSync(content);
  writeFileSync(join(content, 'website.site.yaml'), "'site':\n  'jcr:primaryType': 'mgnl:page'\n  'about':\n    'jcr:primaryType': 'mgnl:page'\n");
  writeFileSync(join(content, 'website.folder.page.yaml'), "'page':\n  'jcr:primaryType': 'mgnl:page'\n");
  const db = join(dir, 'petal.db');
  writeFileSync(join(dir, 'petal.yaml'), `store: sqlite:${db}\npublishing:\n  enabled: true\n`);
  const { code, out, err } = await petal(['import', '--config', join(dir, 'petal.yaml'), '--publish', '--by', 'ci', content]);
  expect(code).toBe(0);
  expect(out).toContain('published website:/site (2 nodes) as version 1.0 by ci');
  expect(err).toContain('website:/folder/page was not published');
  const store = new SqliteStore({ file: db });
  await store.open();
  try {
    expect((await store.reads.getSubtree('website@published', '/site', 5)).map((n) => n.path)).toEqual(['/site', '/site/about']);
    expect(await store.reads.getNode('website@published', '/folder/page')).toBeUndefined();
    expect(await store.reads.getNode('website', '/folder/page')).toBeDefined();
  } finally {
    await store.close();
  }
});

/** A folder of one page to import. */
function content(): string {
  const folder = join(dir, 'content');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'website.site.yaml'), "'site':\n  'jcr:primaryType': 'mgnl:page'\n");
  return folder;
}

it('dispatches unpublish and schedules; help names them and --at', async () => {
  const store = `sqlite:${join(dir, 'x.db')}`;
  // Publishing is off without a petal.yaml that enables it: unpublish is refused, with what to set.
  const off = await petal(['unpublish', 'website', '/site', '--store', store]);
  expect(off.code).toBe(2);
  expect(off.err).toContain('set publishing: {enabled: true} in petal.yaml');
  const badAt = await petal(['publish', 'website', '/site', '--at', 'tomorrow', '--store', store]);
  expect(badAt.code).toBe(2);
  expect(badAt.err).toContain('--at must be an ISO 8601 date-time on the calendar with its offset or Z');
  // Listing only reads: a store that is not there is refused, not made (issue 29).
  const fresh = `sqlite:${join(dir, 'fresh.db')}`;
  const missing = await petal(['schedules', '--store', fresh]);
  expect(missing.code).toBe(1);
  expect(missing.err).toContain(`no store at ${join(dir, 'fresh.db')}`);
  expect((await petal(['import', '--store', fresh, content()])).code).toBe(0);
  const none = await petal(['schedules', '--store', fresh]);
  expect(none.code).toBe(0);
  expect(none.out).toBe('no schedules\n');
  const help = await petal(['--help']);
  expect(help.out).toContain('petal unpublish WORKSPACE PATH');
  expect(help.out).toContain('petal schedules [--json] [--cancel ID]');
  expect(help.out).toContain('--at ISO');
});
