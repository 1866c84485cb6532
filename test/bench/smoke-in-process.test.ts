// Smoke test of bench/, second half: the scripts that measure in their own process (apps on ports the
// system picks), in smoke mode (test/bench/smoke-cases.ts), and PostgreSQL's column loads with
// PETAL_TEST_PG. Fails when a script exits non-zero or prints an error, not on a figure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../helpers/scratch-database.js';
import { expectClean, IN_PROCESS_CASES, runBench, TIMEOUT_MS, uncoveredScripts } from './smoke-cases.js';

const dir = mkdtempSync(join(tmpdir(), 'petal-bench-smoke-'));
const dirs = { dir, tours: join(dir, 'tours.db') };
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = process.env.PETAL_TEST_PG !== undefined && process.env.PETAL_TEST_PG !== '';

describe('bench scripts that measure in process, in smoke mode', () => {
  for (const k of IN_PROCESS_CASES) {
    it(k.name, async () => expectClean(await runBench(k.script, k.args(dirs))), TIMEOUT_MS + 10_000);
  }

  // Skipped without PETAL_TEST_PG (no PostgreSQL to run on); CI sets it.
  it.skipIf(!pg)('generate.ts and column-load.ts on PostgreSQL (a database of their own)', async () => {
    const db = (await createScratchDatabase())!;
    try {
      expectClean(await runBench('generate.ts', ['1000', db.url]));
      expectClean(await runBench('column-load.ts', [db.url, 'title', 'price']));
    } finally {
      await db.drop();
    }
  }, 2 * TIMEOUT_MS + 10_000);

  it('every script under bench/ has a case', () => {
    expect(uncoveredScripts()).toEqual([]);
  });
});
