// Vitest global setup: the tests that run bin/petal.js as a child process run dist/, so dist/ is built
// here once per vitest run (not by each test file) when a source file is newer than it. An up-to-date
// dist/ costs a directory walk, which keeps `npx vitest run test/one.test.ts` quick.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const built = join(REPO, 'dist', 'cli.js');
  const sources = Math.max(newestMtime(join(REPO, 'src')), statSync(join(REPO, 'tsconfig.build.json')).mtimeMs, statSync(join(REPO, 'tsconfig.json')).mtimeMs);
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: REPO, stdio: 'inherit', timeout: 600_000,
  });
}
