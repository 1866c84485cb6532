// Smoke test of bench/, first half: the scripts that serve with `petal serve` children (fixed ports, one
// after the other) over the tours store generate.ts fills, in smoke mode (test/bench/smoke-cases.ts).
// Fails when a script exits non-zero or prints an error, not on a figure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { expectClean, runBench, SERVER_CASES, TIMEOUT_MS } from './smoke-cases.js';

const dir = mkdtempSync(join(tmpdir(), 'petal-bench-smoke-'));
const dirs = { dir, tours: join(dir, 'tours.db') };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench scripts that start servers, in smoke mode', () => {
  for (const k of SERVER_CASES) {
    it(k.name, async () => expectClean(await runBench(k.script, k.args(dirs))), TIMEOUT_MS + 10_000);
  }
  // Skipped when the shared corpora are not beside the checkout (a fresh clone elsewhere); they are in CI.
  it.skipIf(!CORPORA_AVAILABLE)('references.ts (the shared corpora)', async () => {
    expectClean(await runBench('references.ts', ['--seconds', '1'], { PETAL_CORPORA: CORPORA }));
  }, TIMEOUT_MS + 10_000);
});
