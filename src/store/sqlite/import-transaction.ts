// SQLite backend: the two ways an import writes (the store queues them with its other writes). A small
// one on the store's writer, inside the transaction the store holds; a large one in a transaction of
// its own on a worker thread's connection, which runs SQLite's inserts while this thread prepares the
// next rows (import-worker.ts).
import type Database from 'better-sqlite3';
import type { ImportTx } from '../import-tx.js';
import { LocalImportConnection } from './import-connection.js';
import { WorkerImportConnection } from './import-worker.js';
import { SqliteImportTx } from './batched-import-tx.js';

/** On the store's writer, in the caller's transaction (`count`: the nodes the import inserts). */
export async function importOnWriter<T>(writer: Database.Database, count: number, body: (tx: ImportTx) => Promise<T>): Promise<T> {
  const tx = await SqliteImportTx.open(new LocalImportConnection(writer), count, { raiseCache: true });
  try {
    const result = await body(tx);
    await tx.finish();
    return result;
  } finally {
    await tx.close();
  }
}

/**
 * On a worker thread's connection to `file`, in one transaction; `reader` reads the last commit for
 * what the import did not write (SqliteImportTx). After a commit the thread checkpoints the WAL before
 * it ends: `ended` says when (the import is answered meanwhile; the store's close waits for it).
 */
export async function importInWorker<T>(
  file: string, reader: Database.Database, count: number, body: (tx: ImportTx) => Promise<T>,
): Promise<{ result: T; ended: Promise<void> }> {
  const db = new WorkerImportConnection(file);
  let result: T;
  try {
    await db.exec('BEGIN IMMEDIATE');
    const tx = await SqliteImportTx.open(db, count, { raiseCache: false, committed: new LocalImportConnection(reader) });
    result = await body(tx);
    await tx.finish();
    await db.exec('COMMIT');
  } catch (err) {
    await db.rollback().catch(() => undefined);
    await db.close();
    throw err;
  }
  return { result, ended: db.close({ checkpoint: true }) };
}
