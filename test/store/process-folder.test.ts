// Temporary folders of killed processes (a :memory: SQLite store's database, an import's binaries) are swept.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sweepAbandonedFolders } from '../../src/store/process-folder.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

const made: string[] = [];
afterEach(() => { for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true }); });

function folder(path: string): string {
  mkdirSync(path);
  writeFileSync(join(path, 'petal.db'), 'customers');
  made.push(path);
  return path;
}

describe('folders named after their process', () => {
  it('sweeps those of dead processes and old unnamed ones; keeps live, recent and foreign-looking ones', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'petal-sweep-'));
    made.push(parent);
    const dead = folder(join(parent, `petal-x-${deadPid()}-aB3dE6`));
    const live = folder(join(parent, `petal-x-${process.ppid}-aB3dE6`));
    const oldUnnamed = folder(join(parent, 'petal-x-Qw12Er'));
    utimesSync(oldUnnamed, new Date(Date.now() - 2 * 86_400_000), new Date(Date.now() - 2 * 86_400_000));
    const newUnnamed = folder(join(parent, 'petal-x-Ty34Ui'));
    const unrelated = folder(join(parent, 'petal-x-notes'));
    expect((await sweepAbandonedFolders('petal-x-', parent)).sort()).toEqual([dead, oldUnnamed].sort());
    for (const kept of [live, newUnnamed, unrelated]) expect(existsSync(kept), kept).toBe(true);
  });

  it('a :memory: SQLite store sweeps the database folder a killed server left in the temp folder', async () => {
    const left = folder(join(tmpdir(), `petal-memory-${deadPid()}-Zx98Cv`));
    const store = new SqliteStore({ file: ':memory:' });
    await store.open();
    try {
      expect(existsSync(left)).toBe(false);
      expect(store.databaseFile).toMatch(new RegExp(`petal-memory-${process.pid}-`));
    } finally {
      await store.close();
    }
  });
});
