// Where the CLI's store is (issue 29 point 2): without store: it is data/petal.db beside the petal.yaml
// named by --config, whatever the current folder; --store sqlite:REL stays relative to the current folder;
// read-only commands refuse a store that is not there (exit 1) and create nothing; a store left at the old
// default place (./data/petal.db of the current folder) stops the commands with both paths named.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const RENDER = resolve(fileURLToPath(new URL('../fixtures/render', import.meta.url)));
const MISSING = (file: string) => `no store at ${file} (run \`petal serve\` or \`petal import\` first, or pass --store)`;

const READ_ONLY: readonly (readonly string[])[] = [
  ['versions', 'website', '/site'],
  ['changes', '--since', '0'],
  ['schedules'],
  ['schedules', '--cancel', 'x'],
  ['webhooks', 'list'],
  ['webhooks', 'log'],
  ['export', 'website', '/site'],
];

let tmp: string;

/** A folder holding a petal.yaml without store:, and another folder to run from. */
function layout(name: string): { site: string; config: string; elsewhere: string } {
  const site = join(tmp, name, 'site');
  const elsewhere = join(tmp, name, 'elsewhere');
  mkdirSync(site, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  const config = join(site, 'petal.yaml');
  writeFileSync(config, 'port: 8080\n');
  return { site, config, elsewhere };
}

beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'petal-store-location-')); });
afterAll(() => { rmSync(tmp, { recursive: true, force: true }); });

describe('the default store of a petal.yaml', () => {
  it('lies beside the petal.yaml named by --config, not in the current folder, for import and the commands that read', async () => {
    const { site, config, elsewhere } = layout('beside');
    const db = join(site, 'data', 'petal.db');
    const imported = await runCli(['import', '--config', config, RENDER], { cwd: elsewhere });
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`into sqlite:${db}`);
    expect(existsSync(db)).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);

    const published = await runCli(['publish', 'website', '/site', '--by', 'alice', '--config', config], { cwd: elsewhere });
    expect(published.code).toBe(0);
    const versions = await runCli(['versions', 'website', '/site', '--json', '--config', config], { cwd: elsewhere });
    expect(versions.code).toBe(0);
    expect((JSON.parse(versions.stdout) as { createdBy: string }[]).map((v) => v.createdBy)).toEqual(['alice']);
    const changes = await runCli(['changes', '--since', '0', '--json', '--config', config], { cwd: elsewhere });
    expect(changes.code).toBe(0);
    expect((JSON.parse(changes.stdout) as unknown[]).length).toBe(3);
    const log = await runCli(['webhooks', 'log', '--config', config], { cwd: elsewhere });
    expect(log.code).toBe(0);
    expect(log.stdout).toBe('no deliveries\n');
    const exported = await runCli(['export', 'website', '/site', '--config', config], { cwd: elsewhere });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('"site":');
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('is found the same way through PETAL_CONFIG', async () => {
    const { site, config, elsewhere } = layout('env');
    const r = await runCli(['import', RENDER], { cwd: elsewhere, env: { PETAL_CONFIG: config } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`into sqlite:${join(site, 'data', 'petal.db')}`);
  });

  it('--store sqlite:REL is taken from the current folder, also with --config', async () => {
    const { site, config, elsewhere } = layout('relative');
    const r = await runCli(['import', '--config', config, '--store', 'sqlite:rel/x.db', RENDER], { cwd: elsewhere });
    expect(r.code).toBe(0);
    expect(existsSync(join(elsewhere, 'rel', 'x.db'))).toBe(true);
    expect(existsSync(join(site, 'data'))).toBe(false);
    const help = await runCli(['help']);
    expect(help.stdout).toContain('a relative FILE is taken from the');
  });

  it('store: sqlite:REL in petal.yaml is taken from the petal.yaml folder', async () => {
    const { site, config, elsewhere } = layout('yaml-relative');
    writeFileSync(config, 'store: sqlite:./db/content.db\n');
    const r = await runCli(['import', '--config', config, RENDER], { cwd: elsewhere });
    expect(r.code).toBe(0);
    expect(existsSync(join(site, 'db', 'content.db'))).toBe(true);
  });
});

describe('read-only commands', () => {
  it('refuse a SQLite store that is not there with exit 1, and create neither the file nor its folder', async () => {
    const { site, config, elsewhere } = layout('missing');
    for (const args of READ_ONLY) {
      const r = await runCli([...args, '--config', config], { cwd: elsewhere });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toBe(`petal: ${MISSING(join(site, 'data', 'petal.db'))}\n`);
      expect(r.stdout).toBe('');
    }
    for (const args of READ_ONLY) {
      const r = await runCli([...args, '--store', 'sqlite:nothing/here.db'], { cwd: elsewhere });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(MISSING(join(elsewhere, 'nothing', 'here.db')));
    }
    expect(readdirSync(site)).toEqual(['petal.yaml']);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('refuse ./data/petal.db of the current folder when it is not there, without a petal.yaml', async () => {
    const bare = join(tmp, 'bare');
    mkdirSync(bare);
    const r = await runCli(['versions', 'website', '/site'], { cwd: bare });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(MISSING(join(bare, 'data', 'petal.db')));
    expect(readdirSync(bare)).toEqual([]);
  });
});

describe('a store left at the old default place', () => {
  it('stops import, serve and the read-only commands with both paths named, creating nothing', async () => {
    const { site, config, elsewhere } = layout('moved');
    const old = join(elsewhere, 'data', 'petal.db');
    expect((await runCli(['import', '--store', `sqlite:${old}`, RENDER], { cwd: elsewhere })).code).toBe(0);
    const expected = join(site, 'data', 'petal.db');
    for (const args of [['import', RENDER], ['serve', '--port', '0'], ['versions', 'website', '/site'], ['publish', 'website', '/site']]) {
      const r = await runCli([...args, '--config', config], { cwd: elsewhere });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`${config}: no store: is set, so the store is ${expected}`);
      expect(r.stderr).toContain(`but ${old} does`);
      expect(r.stderr).toContain(`set store: sqlite:${old}`);
    }
    expect(existsSync(join(site, 'data'))).toBe(false);
    // Once the store is at its place (or store: names the old one), the commands go on.
    writeFileSync(config, `store: sqlite:${old}\n`);
    expect((await runCli(['versions', 'website', '/site', '--config', config], { cwd: elsewhere })).code).toBe(0);
  });
});
