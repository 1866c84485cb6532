// Large reads of the query index come in pages from one cursor in one snapshot (cursor-reads.ts).
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { readPaged } from '../../src/store/postgres/cursor-reads.js';

const url = process.env.PETAL_TEST_PG ?? '';

// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(url === '')('postgres paged reads', () => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(() => pool.end());

  it('delivers every row in order, a page at a time, and returns the connection', async () => {
    const pages: number[][] = [];
    await readPaged<[number]>(pool, 'SELECT g FROM generate_series(1, $1::int) g ORDER BY g', [5], (rows) => pages.push(rows.map((r) => r[0])), 2);
    expect(pages).toEqual([[1, 2], [3, 4], [5]]);
    expect(pool.idleCount).toBe(pool.totalCount); // released, not leaked
  });

  it('a failing statement rolls back and rejects, leaving the pool usable', async () => {
    await expect(readPaged(pool, 'SELECT 1/0', [], () => undefined)).rejects.toThrow(/division by zero/);
    expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
  });

  it('a page handler that throws while the next page is on its way rejects with its error, the pool usable', async () => {
    const seen: number[] = [];
    await expect(readPaged<[number]>(pool, 'SELECT g FROM generate_series(1, $1::int) g ORDER BY g', [10], (rows) => {
      seen.push(...rows.map((r) => r[0]));
      throw new Error('handler failed');
    }, 3)).rejects.toThrow('handler failed');
    expect(seen).toEqual([1, 2, 3]);
    const again: number[] = [];
    await readPaged<[number]>(pool, 'SELECT g FROM generate_series(1, $1::int) g ORDER BY g', [4], (rows) => again.push(...rows.map((r) => r[0])), 3);
    expect(again).toEqual([1, 2, 3, 4]);
    expect(pool.idleCount).toBe(pool.totalCount);
  });
});
