// Test helper of the bench smoke tests: how a bench script is started in smoke mode (PETAL_BENCH_SMOKE=1,
// bench/smoke.ts) as a child process, what counts as a failure (a non-zero exit or an error printed,
// never a figure), and which script runs with which tiny arguments. The cases are split in two groups,
// one per test file, so that vitest's two workers run them side by side: `servers` start `petal serve`
// children on fixed ports and read the generated tours store, so they run one after the other in one
// file; `inProcess` listen on ports the system picks.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** A script still ends within this in smoke mode, on a loaded machine. */
export const TIMEOUT_MS = 90_000;

export interface Outcome { readonly code: number | null; readonly out: string; readonly err: string }

export function runBench(script: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<Outcome> {
  return new Promise((done, fail) => {
    // A group of its own: a script killed at the time limit takes the servers it started with it.
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench', script), ...args], {
      cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, PETAL_BENCH_SMOKE: '1' }, detached: true,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString('utf8'); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString('utf8'); });
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), TIMEOUT_MS);
    child.on('error', fail);
    child.on('close', (code) => { clearTimeout(timer); done({ code, out, err }); });
  });
}

/** An error as Node prints it, or a line of a bench that says something failed. */
const ERROR = /\b(?:\w*Error|ERR_[A-Z_]+)\b|Unhandled|non-2xx|ANSWERS DIFFER/;

export function expectClean(o: Outcome): void {
  const text = `exit ${o.code}\n--- stdout\n${o.out.slice(-3000)}\n--- stderr\n${o.err.slice(-3000)}`;
  expect(ERROR.test(o.err) || ERROR.test(o.out), text).toBe(false);
  expect(o.code, text).toBe(0);
}

/** Where a case's files go: `tours` is the store generate.ts fills first (10,000 tours). */
export interface CaseDirs { readonly dir: string; readonly tours: string }

export interface SmokeCase {
  readonly name: string;
  readonly script: string;
  readonly args: (d: CaseDirs) => readonly string[];
}

const c = (script: string, args: (d: CaseDirs) => readonly string[], name = script): SmokeCase => ({ name, script, args });

export const SERVER_CASES: readonly SmokeCase[] = [
  // 10,000 tours: the least for which cold-start.ts's server persists query index segments.
  c('generate.ts', (d) => ['10000', d.tours]),
  c('ceiling.ts', (d) => ['--seconds', '1', '--rounds', '1', d.tours]),
  c('run.ts', (d) => ['--seconds', '1', '--rounds', '1', d.tours]),
  c('writes.ts', (d) => ['latency', '--writes', '5', d.tours]),
  c('writes.ts', (d) => ['under-load', '--seconds', '1', '--rate', '20', d.tours], 'writes.ts under-load'),
  c('cold-start.ts', (d) => ['--restarts', '0', d.tours]),
  c('query.ts', (d) => [d.tours, '0.2']),
  c('render.ts', (d) => [d.tours, '/landing', '200']),
  c('import-http.ts', (d) => ['--folders', '1', d.tours]),
  c('shop.ts', () => ['--seconds', '1']),
  c('renditions.ts', () => ['--rounds', '1']),
  c('graphql.ts', () => ['--seconds', '1']),
];

export const IN_PROCESS_CASES: readonly SmokeCase[] = [
  c('metrics.ts', () => ['1', '1']),
  c('rate-limits.ts', () => ['1', '1']),
  c('cache-tags.ts', () => ['1', '1']),
  c('cache-invalidation.ts', () => ['200', '20', '10']),
  c('publishing.ts', () => ['sqlite', '1', '1']),
  c('purge.ts', () => ['sqlite', '5']),
  c('webhooks.ts', () => ['sqlite', '5', '50']),
  c('index-delta.ts', () => ['--nodes', '500', '--changes', '3', '--runs', '3']),
  c('export.ts', (d) => ['200', '500', join(d.dir, 'export.db')]),
  c('small-workspaces.ts', (d) => [join(d.dir, 'small.db'), 'index', '2', '50']),
  c('json-bodies.ts', () => ['1']),
  c('memory-flood.ts', () => ['--scale', '0.005']),
  c('yaml-parse.ts', () => ['500']),
  c('xml-parse.ts', () => ['--nodes', '500', '--rounds', '1']),
];

/**
 * Scripts run by hand-written cases in the test files (references.ts needs the corpora, column-load.ts
 * PostgreSQL) and the helpers the others import.
 */
export const OTHER_SCRIPTS: readonly string[] = ['references.ts', 'column-load.ts', 'autocannon-rate.ts', 'bench-store.ts', 'read-node-variants.ts', 'smoke.ts',
  // import-files.ts has its own smoke test (test/bench/import-files.test.ts).
  'import-files.ts'];

/** Scripts under bench/ that no case runs. */
export function uncoveredScripts(): string[] {
  const covered = new Set([...SERVER_CASES, ...IN_PROCESS_CASES].map((k) => k.script).concat(OTHER_SCRIPTS));
  return readdirSync(join(REPO, 'bench')).filter((f) => f.endsWith('.ts') && !covered.has(f));
}
