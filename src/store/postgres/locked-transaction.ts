// PostgreSQL backend: the transaction of one content write (an import, a Nodes API write, a publish)
// on one pooled connection, under the import lock: positions of new siblings, version numbers and
// change sequence numbers follow the last commit of every instance. New rows buffered by the batch are
// written before COMMIT; on failure the connection is dropped if even ROLLBACK failed (it is broken).
import type pg from 'pg';
import type { BatchedImportTx } from './batched-import-tx.js';
import { IMPORT_LOCK } from './migrations.js';
import { SQL, run } from './statements.js';

/** The generation a write committed as (undefined when it bumped none), and bumpGeneration for its WriteTx / ImportTx. */
export class Generation {
  value: number | undefined;

  constructor(private readonly client: pg.PoolClient, private readonly channel: string, private readonly batched: BatchedImportTx) {}

  async bump(): Promise<void> {
    await this.batched.flush();
    const [row] = await run<{ value: string }>(this.client, SQL.bump);
    this.value = Number(row!.value);
    // Sent when the transaction commits, to every instance listening (this one included).
    await run(this.client, SQL.notify, [this.channel, String(this.value)]);
  }
}

/** Runs `body` between BEGIN (and the import lock) and COMMIT; releases the connection either way. */
export async function lockedTransaction<T>(client: pg.PoolClient, batched: BatchedImportTx, body: () => Promise<T>): Promise<T> {
  let failed = false;
  try {
    await client.query('BEGIN');
    await run(client, SQL.importLock, [IMPORT_LOCK]);
    const result = await body();
    await batched.flush();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    try {
      await batched.settle();
      await client.query('ROLLBACK');
    } catch {
      failed = true; // the connection is broken: drop it rather than return it to the pool
    }
    throw err;
  } finally {
    client.release(failed);
  }
}
