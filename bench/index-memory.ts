// What the query index costs a server: RSS of an idle `petal serve` on a store, the time of the first
// query of each bench scenario (the index loads the workspace and the columns it needs), and the RSS
// once every scenario has run under load for a few seconds. `--root DIR` runs another checkout's
// build (e.g. a worktree of an older commit) on the same store, for a before/after in one run.
// Usage: node --import tsx bench/index-memory.ts [--root DIR] [--seconds 3] STORE...
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { SCENARIOS } from './run.js';

/** The scenarios of the generated tours (run.ts also has lists of a small workspace it imports itself). */
const TOURS = Object.entries(SCENARIOS).filter(([, path]) => !path.includes('/products'));

const HERE = join(dirname(fileURLToPath(import.meta.url)), '..');

function rss(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

const storeUrl = (s: string) => (/^(postgres(ql)?|sqlite):/.test(s) ? s : `sqlite:${s}`);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let root = HERE;
  let seconds = 3;
  const stores: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--root') root = args[++i]!;
    else if (args[i] === '--seconds') seconds = Number(args[++i]);
    else stores.push(args[i]!);
  }
  const port = 18_300;
  for (const store of stores) {
    execFileSync(process.execPath, [join(root, 'bin/petal.js'), 'import', '--store', storeUrl(store), join(HERE, 'bench/content')], { stdio: 'ignore' });
    const server = spawn(process.execPath, [join(root, 'bin/petal.js'), 'serve', '--config', join(HERE, 'bench/petal.yaml'),
      '--store', storeUrl(store), '--port', String(port), '--host', '127.0.0.1', '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
    try {
      for (let i = 0; ; i++) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/.health`)).ok) break;
        } catch { /* not up yet */ }
        if (i > 300) throw new Error(`${store}: server did not start`);
        await new Promise((r) => setTimeout(r, 200));
      }
      await new Promise((r) => setTimeout(r, 1000));
      const idle = rss(server);
      const lines = [`${store} (${root === HERE ? 'this checkout' : root}): idle RSS ${idle} MB`];
      if (server.exitCode !== null) throw new Error(`${store}: server exited`);
      for (const [name, path] of TOURS) {
        const started = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        await res.arrayBuffer();
        lines.push(`  first ${name}: ${res.status} in ${(performance.now() - started).toFixed(0)} ms, RSS ${rss(server)} MB`);
      }
      for (const [, path] of TOURS) {
        await autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: 8, duration: seconds });
      }
      const loaded = rss(server);
      lines.push(`  after ${seconds} s of load per scenario: RSS ${loaded} MB (${loaded - idle} MB above idle)`);
      console.log(lines.join('\n'));
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  }
}

await main();
