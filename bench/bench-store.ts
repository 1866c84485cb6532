// Bench helpers: the modules of the source or of the compiled build (`--dist`, after
// `npx tsc -p tsconfig.build.json`: no tsx name helper around every closure), and a fresh store to
// measure: a SQLite file in `dir`, or a schema of its own on a PostgreSQL database (dropped after).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import type { ContentStore } from '../src/store/content-store.js';

export const dist = process.argv.includes('--dist');

/** A module of Petal by its path below src/ (or dist/ with --dist). */
export function load<T>(path: string): Promise<T> {
  return import(`${dist ? '../dist' : '../src'}/${path}`) as Promise<T>;
}

/** Opens `store` and pairs it with what removes it after the bench. */
export async function benchStore(target: string, dir: string, name: string): Promise<{ store: ContentStore; dispose: () => Promise<void> }> {
  if (!target.startsWith('postgres')) {
    const { SqliteStore } = await load<typeof import('../src/store/sqlite/store.js')>('store/sqlite/store.js');
    const store = new SqliteStore({ file: join(dir, 'bench.db') });
    await store.open();
    return { store, dispose: async () => undefined };
  }
  const { PostgresStore } = await load<typeof import('../src/store/postgres/store.js')>('store/postgres/store.js');
  const schema = `petal_bench_${name}_${randomBytes(4).toString('hex')}`;
  const store = new PostgresStore({ url: target, schema });
  await store.open();
  return {
    store,
    dispose: async () => {
      const c = new pg.Client({ connectionString: target });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}
