// PostgreSQL backend: a publish in one transaction under the import lock (the copy sees no half of an
// import, and publishes of every instance number their versions in turn): the version, its change
// event, the generation bump and its notification commit together.
import type pg from 'pg';
import type { VersionInfo } from '../versions.js';
import { recordPublish } from './changes.js';
import { IMPORT_LOCK } from './migrations.js';
import { SQL, run } from './statements.js';
import { publishVersion } from './versions.js';

/** The version made (undefined: no node there) and the generation it committed as. */
export async function publishTransaction(
  pool: pg.Pool, channel: string, workspace: string, path: string, by: string,
): Promise<{ info: VersionInfo | undefined; generation: number | undefined }> {
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query('BEGIN');
    await run(client, SQL.importLock, [IMPORT_LOCK]);
    const info = await publishVersion(client, workspace, path, by);
    let generation: number | undefined;
    if (info !== undefined) {
      await recordPublish(client, info);
      const [row] = await run<{ value: string }>(client, SQL.bump);
      generation = Number(row!.value);
      await run(client, SQL.notify, [channel, String(generation)]);
    }
    await client.query('COMMIT');
    return { info, generation };
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch {
      failed = true;
    }
    throw err;
  } finally {
    client.release(failed);
  }
}
