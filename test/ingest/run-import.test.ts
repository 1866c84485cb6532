// importPaths end to end: the spool folder of a killed import is swept, and a hostile export imports nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importPaths } from '../../src/ingest/run-import.js';
import { ImportError } from '../../src/ingest/import-error.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';

let dir: string;
let store: SqliteStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-run-import-'));
  store = new SqliteStore({ file: join(dir, 'petal.db') });
  await store.open();
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const EXPORT = "'home':\n  'jcr:primaryType': 'cms:page'\n  'title': 'Home'\n  'logo': !binary 'aGVsbG8='\n";

describe('importPaths: the spool folder of decoded binaries', () => {
  it('is named after the process, removed after the import, and a killed import\'s folder is swept at the next one', async () => {
    const spoolParent = join(dir, 'tmp');
    mkdirSync(spoolParent);
    const dead = join(spoolParent, `petal-import-${deadPid()}-AbC123`);
    const live = join(spoolParent, `petal-import-${process.ppid}-XyZ789`);
    const other = join(spoolParent, 'something-else');
    for (const d of [dead, live, other]) {
      mkdirSync(d);
      writeFileSync(join(d, 'blob'), 'decoded binary');
    }
    writeFileSync(join(dir, 'website.home.yaml'), EXPORT);
    let during: string[] = [];
    await importPaths(store, [join(dir, 'website.home.yaml')], {
      onUuidCollision: 'new',
      spoolParent,
      onProgress: () => { during = readdirSync(spoolParent); },
    });
    expect(during.filter((n) => n.startsWith(`petal-import-${process.pid}-`))).toHaveLength(1);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
    expect(readdirSync(spoolParent).sort()).toEqual([live.slice(spoolParent.length + 1), 'something-else'].sort());
    expect(await store.reads.countNodes('website')).toBe(1);
  });
});

describe('importPaths: a hostile export', () => {
  it('a 1.2 KB "billion laughs" YAML fails with an ImportError and imports nothing, not even the good files', async () => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const lines = ["'bomb':", `  'l0': &l0 {${keys.map((k) => `'${k}': 'lol'`).join(', ')}}`];
    for (let level = 1; level <= 8; level++) lines.push(`  'l${level}': &l${level} {${keys.map((k) => `'${k}': *l${level - 1}`).join(', ')}}`);
    const content = join(dir, 'content');
    mkdirSync(content);
    writeFileSync(join(content, 'website.home.yaml'), EXPORT);
    writeFileSync(join(content, 'website.bomb.yaml'), `${lines.join('\n')}\n`);
    const err = await importPaths(store, [content], { onUuidCollision: 'new', spoolParent: dir }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).file).toBe(join(content, 'website.bomb.yaml'));
    expect((err as ImportError).message).toMatch(/website\.bomb\.yaml:\d+: aliases expand to more than 10000 nodes/);
    expect(await store.reads.countNodes()).toBe(0);
    expect(readdirSync(dir).filter((n) => n.startsWith('petal-import-'))).toEqual([]);
  });
});
