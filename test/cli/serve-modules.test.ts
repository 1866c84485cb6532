// What `petal serve` loads: only what its configuration uses. A SQLite server without resizes, Redis or
// a terminal carries neither pg, sharp, ioredis nor cli-progress: each is memory held for nothing, and
// the heap a server starts with sets how far V8 lets it grow between full collections (an import's peak).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(REPO, 'bin', 'petal.js');
const dir = mkdtempSync(join(tmpdir(), 'petal-serve-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('petal serve on SQLite', () => {
  it('loads no PostgreSQL driver, image library, Redis client or progress bar', async () => {
    const list = join(dir, 'modules.txt');
    // Preloaded: writes the CommonJS modules loaded so far (the packages' own, imported from ESM too).
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, `process.on('SIGUSR2', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join('\\n')));\n`);
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PETAL_')) env[k] = v;
    const child = spawn(process.execPath, ['-r', probe, BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--store', `sqlite:${join(dir, 's.db')}`],
      { cwd: dir, env: { ...env, PETAL_LOG_FORMAT: 'json' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((res, rej) => {
        let out = '';
        child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; if (out.includes('Petal serving')) res(); });
        child.once('exit', (code) => rej(new Error(`petal serve ended (${code}): ${out}`)));
      });
      child.kill('SIGUSR2');
      const deadline = Date.now() + 10_000;
      while (!existsSync(list) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const loaded = readFileSync(list, 'utf8');
      expect(loaded).toContain('/node_modules/better-sqlite3'); // the probe sees packages at all (12, or -13 on Node 22 and later)
      for (const pkg of ['pg', 'pg-copy-streams', 'sharp', 'ioredis', 'cli-progress']) {
        expect(loaded, pkg).not.toContain(`/node_modules/${pkg}/`);
      }
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);
});
