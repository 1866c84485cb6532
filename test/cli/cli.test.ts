// Tests for the `petal` command: help, usage errors (exit 2), `import` (exit 0, or 1 with `<file>:<line>:`
// and nothing written), changes, export, publish and versions run in this process (test/helpers/run-cli.ts);
// `import` and `serve` (start, /.health, stop on SIGTERM with exit 0) also as a real child process
// (bin/petal.js → dist/cli.js, built by test/global-setup.ts), with generous time limits: they wait for
// the child's own signs (its exit, its "Petal serving" line), never for a fixed delay.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { VersionInfo } from '../../src/store/versions.js';
import { defaultPublisher } from '../../src/ingest/version-commands.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(REPO, 'bin', 'petal.js');
const RENDER = join(REPO, 'test', 'fixtures', 'render');
const BROKEN = join(REPO, 'test', 'fixtures', 'invalid', 'website.broken.yaml');
/** A child process on a loaded machine (2 cores, several suites at once) may take many seconds to start. */
const SPAWN_TIMEOUT_MS = 120_000;

const children = new Set<ChildProcess>();
let tmp: string;

/** The environment of the children: ours without PETAL_* settings, with JSON logs. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PETAL_')) env[k] = v;
  return { ...env, PETAL_LOG_FORMAT: 'json', NO_COLOR: '1', ...extra };
}

function startPetal(args: readonly string[], cwd: string): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs bin/petal.js as a child process to its end (the test's time limit bounds it). */
function spawnPetal(args: readonly string[], cwd = tmp): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = startPetal(args, cwd);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.once('error', reject);
    child.once('close', (code, signal) => resolvePromise({ code: code ?? (signal !== null ? 128 : 1), stdout, stderr }));
  });
}

/** Runs petal in this process. */
function runPetal(args: readonly string[], cwd = tmp): Promise<CliRun> {
  return runCli(args, { cwd, env: { PETAL_LOG_FORMAT: 'json', NO_COLOR: '1' } });
}

async function countNodes(file: string): Promise<number> {
  const store = new SqliteStore({ file });
  await store.open();
  try {
    return await store.reads.countNodes();
  } finally {
    await store.close();
  }
}

function newDir(name: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'petal-cli-')); });

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('petal help and usage errors', () => {
  it('--help exits 0 and lists serve and import', async () => {
    const r = await runPetal(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('petal serve');
    expect(r.stdout).toContain('petal import');
    expect(r.stderr).toBe('');
  });

  it('prints the help for `help`, -h and no command', async () => {
    for (const args of [['help'], ['-h'], []]) {
      const r = await runPetal(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('petal serve');
    }
  });

  it('prints the version', async () => {
    const r = await runPetal(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 on an unknown command', async () => {
    const r = await runPetal(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(r.stderr).toContain('petal serve');
  });

  it('exits 2 on an unknown option', async () => {
    const r = await runPetal(['import', '--bogus', RENDER]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--bogus');
  });

  it('exits 2 for import without files', async () => {
    const r = await runPetal(['import', '--store', `sqlite:${join(tmp, 'none.db')}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('name at least one file or folder');
  });

  it('exits 2 for a bad --on-uuid-collision', async () => {
    const r = await runPetal(['import', '--on-uuid-collision', 'sometimes', RENDER]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--on-uuid-collision');
  });

  it('exits 1 with the reason for a bad --port', async () => {
    const r = await runPetal(['serve', '--port', 'abc', '--store', `sqlite:${join(tmp, 'port.db')}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--port');
    expect(r.stderr).toContain('"abc"');
  });

  it('exits 1 naming the file for a broken petal.yaml', async () => {
    const dir = newDir('bad-config');
    writeFileSync(join(dir, 'petal.yaml'), 'port: "x"\n');
    const r = await runPetal(['import', RENDER], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'petal.yaml')}:1: port:`);
  });
});

describe('petal import', () => {
  it('bin/petal.js imports a folder and reports the node count (a child process)', async () => {
    const db = join(newDir('import-ok'), 'x.db');
    const r = await spawnPetal(['import', RENDER, '--store', `sqlite:${db}`]);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const m = /imported (\d+) nodes from (\d+) files/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    const nodes = Number(m![1]);
    expect(nodes).toBeGreaterThan(0);
    expect(Number(m![2])).toBe(readdirSync(RENDER).length);
    expect(r.stdout).toContain(`into sqlite:${db}`);
    expect(await countNodes(db)).toBe(nodes);
  }, SPAWN_TIMEOUT_MS);

  it('a SQLite import does not load the PostgreSQL backend (pg was a part of the command\'s start)', async () => {
    const dir = newDir('import-no-pg');
    // At exit, the child says whether any module of the pg package was loaded (an ESM import of pg is in the CommonJS cache too).
    const probe = join(dir, 'pg-probe.mjs');
    writeFileSync(probe, [
      "import { createRequire } from 'node:module';",
      "process.on('exit', () => {",
      '  const loaded = Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\\\/]node_modules[\\\\/]pg[\\\\/]/.test(k));',
      "  process.stderr.write(`pg loaded: ${loaded}\\n`);",
      '});',
    ].join('\n'));
    const run = (args: readonly string[]) => new Promise<CliRun>((resolvePromise, reject) => {
      const child = spawn(process.execPath, ['--import', pathToFileURL(probe).href, BIN, ...args], { cwd: dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
      child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
      child.once('error', reject);
      child.once('close', (code) => { children.delete(child); resolvePromise({ code: code ?? 1, stdout, stderr }); });
    });
    const r = await run(['import', RENDER, '--store', `sqlite:${join(dir, 'x.db')}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('pg loaded: false');
    // The probe does see pg when something loads it (a command naming a PostgreSQL store loads it to connect).
    const pg = await run(['import', RENDER, '--store', 'postgres://nobody@127.0.0.1:1/none']);
    expect(pg.code).not.toBe(0);
    expect(pg.stderr).toContain('pg loaded: true');
  }, SPAWN_TIMEOUT_MS);

  it('takes the store path relative to the working directory, sqlite: prefix optional', async () => {
    const dir = newDir('import-relative');
    const r = await runPetal(['import', '--store', 'rel/y.db', RENDER], dir);
    expect(r.code).toBe(0);
    const nodes = Number(/imported (\d+) nodes/.exec(r.stdout)![1]);
    expect(await countNodes(join(dir, 'rel', 'y.db'))).toBe(nodes);
  });

  it('imports into ./data/petal.db without --store or petal.yaml', async () => {
    const dir = newDir('import-default');
    const r = await runPetal(['import', RENDER], dir);
    expect(r.code).toBe(0);
    const nodes = Number(/imported (\d+) nodes/.exec(r.stdout)![1]);
    expect(r.stdout).toContain(`into sqlite:${join(dir, 'data', 'petal.db')}`);
    expect(await countNodes(join(dir, 'data', 'petal.db'))).toBe(nodes);
  });

  it('exits 1 on a broken YAML file, names <file>:<line>: and writes nothing', async () => {
    const dir = newDir('import-broken');
    const content = join(dir, 'content');
    mkdirSync(content);
    // good files beside the broken one: the import is all or nothing
    for (const f of readdirSync(RENDER)) copyFileSync(join(RENDER, f), join(content, f));
    const broken = join(content, 'website.broken.yaml');
    copyFileSync(BROKEN, broken);
    const db = join(dir, 'x.db');
    const r = await runPetal(['import', '--store', `sqlite:${db}`, content]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+: `));
    expect(r.stdout).not.toContain('imported');
    expect(await countNodes(db)).toBe(0);
  });
});

async function versionsOf(file: string, workspace: string, path: string): Promise<VersionInfo[]> {
  const store = new SqliteStore({ file });
  await store.open();
  try {
    return await store.versions.list(workspace, path);
  } finally {
    await store.close();
  }
}

async function versionNames(file: string, workspace: string, path: string): Promise<string[]> {
  return (await versionsOf(file, workspace, path)).map((v) => v.name);
}

describe('petal changes', () => {
  it('lists the events of imports and publishes after --since, as text and JSON, a page at a time', async () => {
    const db = join(newDir('changes'), 'x.db');
    const store = `sqlite:${db}`;
    expect((await runPetal(['import', '--store', store, RENDER])).code).toBe(0);
    expect((await runPetal(['publish', 'website', '/site', '--by', 'alice', '--store', store])).code).toBe(0);

    const json = await runPetal(['changes', '--since', '0', '--json', '--store', store]);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const events = JSON.parse(json.stdout) as { sequence: number; workspace: string; kind: string; by?: string; created: { path: string }[]; changed: { path: string }[] }[];
    // One event per workspace of the import, then the publish.
    expect(events.slice(0, 2).map((e) => [e.kind, e.workspace]).sort()).toEqual([['import', 'plants'], ['import', 'website']]);
    expect(events).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ kind: 'publish', workspace: 'website', by: 'alice', changed: [{ path: '/site' }] });
    expect(events.find((e) => e.workspace === 'website')!.created.map((n) => n.path)).toContain('/site');
    for (let i = 1; i < events.length; i++) expect(events[i]!.sequence).toBeGreaterThan(events[i - 1]!.sequence);

    const page = await runPetal(['changes', '--since', String(events[0]!.sequence), '--limit', '1', '--json', '--store', store]);
    expect((JSON.parse(page.stdout) as { sequence: number }[]).map((e) => e.sequence)).toEqual([events[1]!.sequence]);

    const text = await runPetal(['changes', '--since', '0', '--store', store]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^#\d+ {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}import {2}website {2}\(\d+ nodes\)$/m);
    expect(text.stdout).toMatch(/^ {2}\+ \/site {2}\S+ {2}\S+$/m);
    expect(text.stdout).toMatch(/publish 1\.0 {2}website by alice {2}\(1 node\)\n {2}~ \/site /);

    const none = await runPetal(['changes', '--since', String(events.at(-1)!.sequence), '--store', store]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('no changes after');
    for (const args of [['changes'], ['changes', '--since', '-1'], ['changes', '--since', 'x'], ['changes', '--since', '0', '--limit', '0'],
      ['changes', '--since', '0', '--limit', '1001'], ['changes', '--since', '0', 'extra'], ['changes', '--since', '0', '--bogus']]) {
      const r = await runPetal([...args, '--store', store]);
      expect(r.code, args.join(' ')).toBe(2);
    }
  });
});

describe('petal export', () => {
  it('writes a subtree to standard output or a folder, and the folder imports back to the same nodes', async () => {
    const dir = newDir('export');
    const db = join(dir, 'x.db');
    expect((await runPetal(['import', '--store', `sqlite:${db}`, RENDER])).code).toBe(0);
    const out = await runPetal(['export', 'website', '/site', '--store', `sqlite:${db}`]);
    expect(out.code).toBe(0);
    expect(out.stdout.startsWith('"site":\n  "jcr:primaryType": "mgnl:')).toBe(true);
    const folder = newDir('export/files');
    const file = await runPetal(['export', 'website', '/', '--out', folder, '--store', `sqlite:${db}`]);
    expect(file.code).toBe(0);
    expect(readdirSync(folder)).toEqual(['website.xml']);
    const copy = join(dir, 'copy.db');
    expect((await runPetal(['import', '--store', `sqlite:${copy}`, folder])).code).toBe(0);
    expect(await countNodes(copy)).toBe(await countNodes(db) - (await countOf(db, 'plants')));
    expect((await runPetal(['export', 'website'])).code).toBe(2);
    const missing = await runPetal(['export', 'website', '/nope', '--store', `sqlite:${db}`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no node at website:/nope');
  });
});

async function countOf(file: string, workspace: string): Promise<number> {
  const store = new SqliteStore({ file });
  await store.open();
  try {
    return await store.reads.countNodes(workspace);
  } finally {
    await store.close();
  }
}

describe('petal publish and petal versions', () => {
  it('publishes 1.0 then 1.1 with who, and lists them as text and JSON', async () => {
    const db = join(newDir('publish'), 'x.db');
    expect((await runPetal(['import', '--store', `sqlite:${db}`, RENDER])).code).toBe(0);
    const first = await runPetal(['publish', 'website', '/site', '--by', 'alice', '--store', `sqlite:${db}`]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^published website:\/site as version 1\.0 \(\d+ nodes\) by alice into sqlite:/);
    const second = await runPetal(['publish', 'website', 'site/', '--by', 'bob', '--store', `sqlite:${db}`]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('as version 1.1');
    expect(await versionNames(db, 'website', '/site')).toEqual(['1.0', '1.1']);

    const text = await runPetal(['versions', 'website', '/site', '--store', `sqlite:${db}`]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^VERSION\s+CREATED\s+BY/);
    expect(lines[1]).toMatch(/^1\.0\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+alice\s+\(\d+\)$/);
    expect(lines[2]).toMatch(/^1\.1\s+.*\s+bob\s+\(\d+\)$/);

    const json = await runPetal(['versions', 'website', '/site', '--json', '--store', `sqlite:${db}`]);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as { name: string; created: string; createdBy: string; nodes: number }[];
    expect(list.map((v) => [v.name, v.createdBy])).toEqual([['1.0', 'alice'], ['1.1', 'bob']]);
    expect(Number.isNaN(Date.parse(list[0]!.created))).toBe(false);
    expect(list[0]!.nodes).toBeGreaterThan(1);

    const none = await runPetal(['versions', 'website', '/site/about', '--store', `sqlite:${db}`]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('no versions of website:/site/about');
    const noneJson = await runPetal(['versions', 'website', '/site/about', '--json', '--store', `sqlite:${db}`]);
    expect(JSON.parse(noneJson.stdout)).toEqual([]);
  });

  it('exits 1 for a node that does not exist, and 2 for missing or bad arguments', async () => {
    const db = join(newDir('publish-bad'), 'x.db');
    expect((await runPetal(['import', '--store', `sqlite:${db}`, RENDER])).code).toBe(0);
    const missing = await runPetal(['publish', 'website', '/nothing', '--store', `sqlite:${db}`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no node at website:/nothing');
    for (const args of [['publish'], ['publish', 'website'], ['publish', 'website', '/'], ['publish', 'website', '/a/../b'],
      ['versions', 'website'], ['publish', 'website', '/site', '--by', ' '], ['import', '--by', 'x', RENDER]]) {
      const r = await runPetal([...args, '--store', `sqlite:${db}`]);
      expect(r.code, args.join(' ')).toBe(2);
    }
    expect(await versionNames(db, 'website', '/site')).toEqual([]);
  });

  it('import --publish publishes each imported top-level node', async () => {
    const db = join(newDir('import-publish'), 'x.db');
    const r = await runPetal(['import', '--publish', '--by', 'ci', '--store', `sqlite:${db}`, RENDER]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('published website:/site as version 1.0');
    expect(r.stdout).toContain('published website:/site/about/history as version 1.0');
    expect(r.stdout).toContain('published plants:/catalog as version 1.0');
    expect(await versionNames(db, 'website', '/site')).toEqual(['1.0']);
    expect(await versionNames(db, 'plants', '/catalog')).toEqual(['1.0']);
    const again = await runPetal(['import', '--publish', '--store', `sqlite:${db}`, RENDER]);
    expect(again.code).toBe(0);
    expect(await versionNames(db, 'website', '/site')).toEqual(['1.0', '1.1']);
    // who: --by, else the operating-system user; when: the publish instant
    const [first, second] = await versionsOf(db, 'website', '/site');
    expect(first!.createdBy).toBe('ci');
    expect(second!.createdBy).toBe(defaultPublisher());
    expect(Date.parse(second!.created)).toBeGreaterThanOrEqual(Date.parse(first!.created));
  });

  it('help names publish, versions and changes', async () => {
    const r = await runPetal(['--help']);
    expect(r.stdout).toContain('petal changes --since N');
    expect(r.stdout).toContain('petal publish WORKSPACE PATH');
    expect(r.stdout).toContain('petal versions WORKSPACE PATH');
    expect(r.stdout).toContain('--publish');
  });

});

describe('petal serve', () => {
  it('ends with exit 1 and names the port when the port is in use, instead of hanging', async () => {
    const taken = createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await spawnPetal(['serve', '--port', String(port), '--host', '127.0.0.1', '--store', `sqlite:${join(newDir('port-taken'), 'p.db')}`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Port ${port} on 127.0.0.1 is in use by another process`);
    } finally {
      await new Promise((res) => taken.close(res));
    }
  }, SPAWN_TIMEOUT_MS);

  it('starts, answers /.health and stops on SIGTERM with exit 0', async () => {
    const dir = newDir('serve');
    const modules = join(dir, 'light-modules');
    mkdirSync(join(modules, 'test-module', 'restEndpoints', 'delivery'), { recursive: true });
    writeFileSync(join(modules, 'test-module', 'restEndpoints', 'delivery', 'pages_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\nbypassWorkspaceAcls: true\n');
    const db = join(dir, 'serve.db');
    const imported = await runPetal(['import', '--store', `sqlite:${db}`, RENDER]);
    expect(imported.code).toBe(0);

    const child = startPetal(['serve', '--port', '0', '--host', '127.0.0.1', '--modules', modules, '--store', `sqlite:${db}`], dir);
    let stdout = '';
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
      child.once('exit', (code, signal) => res({ code, signal }));
    });
    const messages: string[] = [];
    const serving = new Promise<string>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no "Petal serving" line within ${SPAWN_TIMEOUT_MS} ms\n${stdout}\n${stderr}`)), SPAWN_TIMEOUT_MS);
      let pending = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        pending += d;
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          let msg: string;
          try {
            msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? '');
          } catch {
            continue; // not a JSON log line
          }
          messages.push(msg);
          if (msg.includes('Petal serving')) {
            clearTimeout(timer);
            res(msg);
          }
        }
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        rej(new Error(`petal serve ended early (code ${code}, signal ${signal})\n${stdout}\n${stderr}`));
      });
    });

    try {
      const line = await serving;
      const url = /at (http:\/\/\S+)/.exec(line)?.[1];
      expect(url, line).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(url).not.toMatch(/:0$/);
      expect(line).toMatch(/serving 1 endpoints and [1-9]\d* nodes/);
      expect(line).toContain(`store sqlite:${db}`);

      const res = await fetch(`${url}/.health`, { signal: AbortSignal.timeout(30_000) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(await res.json()).toEqual({ status: 'ok' });

      const page = await fetch(`${url}/.rest/delivery/pages/v1/site`, { signal: AbortSignal.timeout(30_000) });
      expect(page.status).toBe(200);
      expect(await page.json()).toMatchObject({ '@name': 'site', '@path': '/site' });

      child.kill('SIGTERM');
      const end = await Promise.race([
        exited,
        new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`petal serve did not stop on SIGTERM\n${stdout}\n${stderr}`)), SPAWN_TIMEOUT_MS)),
      ]);
      expect(end).toEqual({ code: 0, signal: null });
      expect(messages.some((m) => m.includes('SIGTERM'))).toBe(true);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 3 * SPAWN_TIMEOUT_MS);
});
