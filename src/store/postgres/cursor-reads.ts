// PostgreSQL backend: a large read (a workspace's node table, a property column) in pages from one
// cursor, which reads the snapshot of its DECLARE: the pages are one consistent read. `pg` otherwise
// builds every row of a result at once: a million rows are a million arrays and strings, garbage the size of the index itself, which lifts
// the heap (and the process's RSS) long after the index has kept its compact copy.
import type pg from 'pg';

/** Rows fetched per round trip: large enough that round trips do not matter, small enough to stay young garbage. */
const PAGE_ROWS = 20_000;

export async function readPaged<R extends unknown[]>(
  pool: pg.Pool, text: string, values: readonly unknown[], onRows: (rows: readonly R[]) => void, pageRows = PAGE_ROWS,
): Promise<void> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN READ ONLY');
    await client.query({ text: `DECLARE petal_paged NO SCROLL CURSOR FOR ${text}`, values: values as unknown[] });
    const fetch = () => client.query<R>({ text: `FETCH ${pageRows} FROM petal_paged`, rowMode: 'array' });
    let next: Promise<pg.QueryResult<R>> | undefined = fetch();
    while (next !== undefined) {
      const r: pg.QueryResult<R> = await next;
      // The next page is asked for before this one is handled: the server reads it meanwhile (a
      // column built from the nodes' JSON costs both sides about as much).
      next = r.rows.length < pageRows ? undefined : fetch();
      try {
        if (r.rows.length > 0) onRows(r.rows);
      } catch (err) {
        next?.catch(() => {}); // settled by the ROLLBACK below; its outcome no longer matters
        throw err;
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true; // the connection is gone: do not return it to the pool
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
