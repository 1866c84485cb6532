// PostgreSQL backend: one import's transaction on one connection: the repository's import rules run
// over a batched ImportTx, binaries in chunks, the generation bumped and announced (NOTIFY, delivered
// when the transaction commits), and the connection dropped if it broke.
import { open as openFile } from 'node:fs/promises';
import type pg from 'pg';
import type { ImportTx } from '../import-tx.js';
import type { BlobSpool } from '../rows.js';
import { BatchedImportTx } from './batched-import-tx.js';
import { Generation, lockedTransaction } from './locked-transaction.js';
import { SQL, exec, run } from './statements.js';
import { recordChange } from './changes.js';
import { recordBootstrap } from './bootstrap-files.js';

export const BLOB_CHUNK = 1 << 20;

/** Runs `body` in the import's transaction; the generation it committed as. All of it is committed, or it throws. */
export async function importTransaction<T>(
  pool: pg.Pool,
  channel: string,
  body: (tx: ImportTx) => Promise<T>,
): Promise<{ result: T; generation: number | undefined }> {
  const client = await pool.connect();
  // Lookups of what the transaction did not write go to the pool's other connections (batched-import-tx.ts);
  // a pool of one connection has none (it would wait for the one this import holds).
  const batched = new BatchedImportTx(client, (pool.options.max ?? 10) > 1 ? pool : undefined);
  const generation = new Generation(client, channel, batched);
  const tx: ImportTx = {
    pathOfId: (ws, id) => batched.pathOfId(ws, id),
    prefetchIds: (ws, ids) => batched.prefetchIds(ws, ids),
    positionOf: (ws, path) => batched.positionOf(ws, path),
    maxChildPosition: (ws, parent) => batched.maxChildPosition(ws, parent),
    deleteSubtree: (ws, path) => batched.deleteSubtree(ws, path),
    subtreeNodes: (ws, path, limit) => batched.subtreeNodes(ws, path, limit),
    recordChange: async (change) => {
      await batched.flush();
      await recordChange(client, change);
    },
    recordBootstrap: async (records, ownChanges) => {
      await batched.flush();
      await recordBootstrap(client, records, ownChanges);
    },
    insertNode: (node) => batched.insertNode(node),
    hasBlob: async (hash) => (await run(client, SQL.hasBlob, [hash])).length > 0,
    insertBlob: (spool) => insertBlobChunks(client, spool),
    bumpGeneration: () => generation.bump(),
  };
  // Imports of other instances wait for this one (positions of new siblings depend on the last commit).
  const result = await lockedTransaction(client, batched, () => body(tx));
  return { result, generation: generation.value };
}

async function insertBlobChunks(client: pg.PoolClient, spool: BlobSpool): Promise<void> {
  const file = await openFile(spool.file, 'r');
  try {
    const buf = Buffer.allocUnsafe(BLOB_CHUNK);
    let seq = 0;
    for (;;) {
      const { bytesRead } = await file.read(buf, 0, BLOB_CHUNK, null);
      if (bytesRead <= 0) break;
      await exec(client, SQL.insertChunk, [spool.hash, seq++, Buffer.from(buf.subarray(0, bytesRead))]);
    }
  } finally {
    await file.close();
  }
  await exec(client, SQL.insertBlob, [spool.hash, spool.size]);
}
