// An import holds a bounded part of its files in memory (issue 31): a 200,000-node export imports in
// a process whose heap is capped at 256 MB (a whole-document parse of it needs several GB).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, 'import-capped-heap-child.ts');
const NODES = 200_000;

let dir = '';
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-heap-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('an import under a capped heap (--max-old-space-size=256)', () => {
  for (const format of ['yaml', 'xml'] as const) {
    it(`imports a generated ${NODES}-node ${format} export`, async () => {
      const { stdout } = await promisify(execFile)(process.execPath,
        ['--max-old-space-size=256', '--import', 'tsx', CHILD, dir, format, String(NODES)], { maxBuffer: 1 << 20, timeout: 300_000 });
      expect(JSON.parse(stdout.trim())).toEqual({ nodes: NODES, warnings: 0 });
    }, 320_000);
  }
});
