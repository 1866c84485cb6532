// PostgreSQL migrations (schema.ts): pending migrations applied in one transaction, all or none; an
// open that finds them all applied sends no transaction; the record is looked for where CREATE TABLE
// puts it, not in another schema of the search_path. In the database named by PETAL_TEST_PG (skipped
// without it).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyMigrations, type MigrationSet } from '../../src/store/postgres/schema.js';
import { pgRows as sql } from '../conformance/pg-sql.js';

const url = process.env.PETAL_TEST_PG ?? '';

const set = (migrations: MigrationSet['migrations']): MigrationSet => ({ table: 'test_migrations', lock: 0x7465_7374, migrations });
const M1 = { version: 1, name: 'one', sql: 'CREATE TABLE a (x int)' };
const M2 = { version: 2, name: 'two', sql: 'CREATE TABLE b (x int); INSERT INTO a VALUES (1)' };
const M3 = { version: 3, name: 'three', sql: 'ALTER TABLE b ADD COLUMN y int' };

// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(url === '')('applyMigrations', () => {
  const schemas: string[] = [];
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const p of pools.splice(0)) await p.end();
    for (const s of schemas.splice(0)) await sql(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  });
  async function pool(...path: string[]): Promise<pg.Pool> {
    for (const s of path) {
      if (!schemas.includes(s)) schemas.push(s);
      await sql(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    }
    const p = new pg.Pool({ connectionString: url, options: `-c search_path=${path.join(',')}` });
    pools.push(p);
    return p;
  }
  const name = () => `petal_am_${randomBytes(5).toString('hex')}`;

  it('applies the pending ones in order in one transaction, then finds them applied without a transaction', async () => {
    const s = name();
    const p = await pool(s);
    expect(await applyMigrations(p, set([M1, M2]))).toBe(2);
    const rows = await sql<{ version: number; applied_at: Date }>(`SELECT version, applied_at FROM ${s}.test_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual([1, 2]);
    expect(new Set(rows.map((r) => r.applied_at.getTime())).size).toBe(1); // now() of one transaction
    expect(await sql(`SELECT x FROM ${s}.a`)).toEqual([{ x: 1 }]);

    const sent: string[] = [];
    const original = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      sent.push(typeof q === 'string' ? q : q.text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    expect(await applyMigrations(p, set([M1, M2]))).toBe(0);
    expect(sent).toHaveLength(2);
    expect(sent.some((q) => /BEGIN|LOCK|lock/.test(q))).toBe(false);
    vi.restoreAllMocks();

    expect(await applyMigrations(p, set([M1, M2, M3]))).toBe(1);
    expect(await sql(`SELECT version FROM ${s}.test_migrations ORDER BY version`)).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
  });

  it('a failing migration applies none of the pending ones', async () => {
    const s = name();
    const p = await pool(s);
    await expect(applyMigrations(p, set([M1, { version: 2, name: 'bad', sql: 'CREATE TABLE b (x nosuchtype)' }]))).rejects.toThrow(/nosuchtype/);
    expect(await sql(`SELECT to_regclass('${s}.test_migrations') IS NULL AS none, to_regclass('${s}.a') IS NULL AS no_a`)).toEqual([{ none: true, no_a: true }]);
    expect(await applyMigrations(p, set([M1, M2]))).toBe(2);
  });

  it('a record of the same name in a later schema of the search_path is not taken for this one', async () => {
    const other = name();
    const mine = name();
    expect(await applyMigrations(await pool(other), set([M1, M2]))).toBe(2);
    // search_path: mine first (where CREATE TABLE creates), then the other one, whose record says "all applied".
    expect(await applyMigrations(await pool(mine, other), set([M1, M2]))).toBe(2);
    expect(await sql(`SELECT version FROM ${mine}.test_migrations ORDER BY version`)).toEqual([{ version: 1 }, { version: 2 }]);
  });

  it('instances applying at once apply each migration once', async () => {
    const s = name();
    const instances = [await pool(s), await pool(s), await pool(s), await pool(s)];
    const all = await Promise.all(instances.map((p) => applyMigrations(p, set([M1, M2, M3]))));
    expect(all.sort()).toEqual([0, 0, 0, 3]);
  });
});
