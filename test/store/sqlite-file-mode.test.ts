// The SQLite database holds customers' addresses and e-mails: its files are readable by the owner only.
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';

const modeOf = (file: string) => statSync(file).mode & 0o777;
const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'petal-sqlite-mode-'));
  dirs.push(d);
  return d;
}

describe('SQLite database file modes', () => {
  it('creates the database (and its -wal and -shm files, and a missing folder) readable by the owner only', async () => {
    const dir = join(scratch(), 'data');
    const file = join(dir, 'petal.db');
    const store = new SqliteStore({ file });
    await store.open();
    try {
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(dir)).toBe(0o700);
      for (const f of [`${file}-wal`, `${file}-shm`]) if (existsSync(f)) expect(modeOf(f), f).toBe(0o600);
      expect(existsSync(`${file}-wal`)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('narrows an existing database readable by others, and says so', async () => {
    const file = join(scratch(), 'petal.db');
    const first = new SqliteStore({ file });
    await first.open();
    await first.close();
    writeFileSync(`${file}-wal`, '');
    for (const f of [file, `${file}-wal`]) chmodSync(f, 0o644);
    const notices: string[] = [];
    const store = new SqliteStore({ file, onNotice: (m) => notices.push(m) });
    await store.open();
    try {
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
      expect(notices).toContainEqual(expect.stringMatching(new RegExp(`database file ${file}: narrowed from mode 644 to 600`)));
      expect(await store.reads.ping()).toBe(true);
    } finally {
      await store.close();
    }
  });
});
