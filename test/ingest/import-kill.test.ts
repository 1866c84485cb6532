// All or nothing for a streamed import (issue 31): a file is written while it is read, in one
// transaction, so a process killed (SIGKILL) halfway through the file leaves the store as it was.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { writeProductsXml, writeProductsYaml } from '../helpers/product-exports.js';

const CHILD = join(import.meta.dirname, 'import-kill-child.ts');

let dir = '';
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-kill-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

async function killedHalfway(db: string, file: string): Promise<void> {
  const marker = join(dir, 'marker');
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, db, file, marker], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 120_000;
  while (!existsSync(marker)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the child ended before the marker: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  await exited;
}

describe('a streamed import killed halfway', () => {
  for (const [format, writeFile_] of [['xml', writeProductsXml], ['yaml', writeProductsYaml]] as const) {
    it(`leaves the store as it was (${format}, 30,000 nodes, the store's worker writing)`, async () => {
      const db = join(dir, 'store.db');
      const before = join(dir, 'shop.catalog.yaml');
      await writeFile(before, "catalog:\n  'jcr:primaryType': mgnl:folder\n  title: kept\n");
      const store = new SqliteStore({ file: db });
      await store.open();
      await importPaths(store, [before], { onUuidCollision: 'new' });
      const count = await store.reads.countNodes('shop');
      await store.close();

      const file = join(dir, `shop.${format}`);
      await writeFile_(file, { nodes: 30_000 });
      await killedHalfway(db, file);

      const after = new SqliteStore({ file: db });
      await after.open();
      try {
        expect(await after.reads.countNodes('shop')).toBe(count);
        expect((await after.reads.getNode('shop', '/catalog'))?.properties).toContainEqual(['title', 'String', 'kept']);
        expect(await after.reads.getNode('shop', '/products')).toBeUndefined();
      } finally {
        await after.close();
      }
    }, 180_000);
  }
});
