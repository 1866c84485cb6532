// First loads of the query index's columns from a PostgreSQL database bench/generate.ts filled, through
// the store's column source: wall time, CPU of this process and CPU of its PostgreSQL backend (from
// /proc, so the server must run on this machine). `--together` reads the columns in one scan (what
// the refresh of persisted segments does); `--source DIR` uses the column source of another checkout
// (a worktree of an older commit) to compare. Usage:
//   node --import tsx bench/column-load.ts [--source DIR] [--together] postgres://…/db title price …
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { PropertyColumn } from '../src/store/query-index/column-source.js';
import type { postgresColumnSource as Make } from '../src/store/postgres/column-source.js';

const args = process.argv.slice(2);
let source = join(dirname(fileURLToPath(import.meta.url)), '..');
let together = false;
const rest: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--source') source = args[++i]!;
  else if (args[i] === '--together') together = true;
  else rest.push(args[i]!);
}
const [url, ...names] = rest;
if (url === undefined || names.length === 0) throw new Error('usage: bench/column-load.ts [--source DIR] [--together] URL NAME...');

const { postgresColumnSource } = (await import(join(source, 'src/store/postgres/column-source.ts'))) as { postgresColumnSource: typeof Make };
const pool = new pg.Pool({ connectionString: url, max: 1 });
const client = await pool.connect();
const pid = (await client.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
client.release();
const ticks = Number(process.env.CLK_TCK ?? 100);
/** CPU seconds of the backend so far (utime + stime of /proc/<pid>/stat). */
const serverCpu = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / ticks;
};
const columns = postgresColumnSource((fn) => fn(pool), async () => 0, (row: never) => row, () => {});

async function measure(label: string, read: () => Promise<number>): Promise<void> {
  const s0 = serverCpu();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const entries = await read();
  const cpu = process.cpuUsage(c0);
  console.log(`| ${label} | ${entries} | ${((performance.now() - t0) / 1000).toFixed(2)} | ${((cpu.user + cpu.system) / 1e6).toFixed(2)} | ${(serverCpu() - s0).toFixed(2)} |`);
}

console.log(`column loads from ${source} (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
console.log('| column | entries | wall s | Node CPU s | server CPU s |');
console.log('|---|---:|---:|---:|---:|');
// The node table first, as the index reads it: the columns then find the nodes' pages in the cache.
await measure('(node table)', async () => (await columns.nodeTable('tours')).nids.length);
if (together) {
  await measure(names.join(', '), async () => {
    const read = (columns as { propertyColumns?: (w: string, n: readonly string[]) => Promise<Map<string, PropertyColumn>> }).propertyColumns;
    if (read === undefined) throw new Error(`${source} reads no columns together`);
    return [...(await read.call(columns, 'tours', names)).values()].reduce((sum, c) => sum + c.nids.length, 0);
  });
} else {
  for (const name of names) await measure(name, async () => (await columns.propertyColumn('tours', name)).nids.length);
}
await pool.end();
