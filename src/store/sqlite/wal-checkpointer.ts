// SQLite backend: WAL checkpoints in a worker thread. better-sqlite3 runs every statement on Node's
// main thread, and SQLite's automatic checkpoint runs inside the COMMIT that crosses 1,000 WAL pages:
// at a million nodes that copied pages back into the database file for milliseconds per write while
// no request was served. The serving connections turn it off (`wal_autocheckpoint = 0`) and this
// worker, on a connection of its own, runs PASSIVE checkpoints on a timer: they never wait for and
// never block readers or the writer. The WAL is reset by the next write once wholly checkpointed, and
// `journal_size_limit` (set on the writer) truncates its file then, so no blocking RESTART/TRUNCATE
// checkpoint is needed. Crash safety is SQLite's own: a checkpoint from any connection is safe.
import { DRIVER_MODULE } from './driver.js';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** What `PRAGMA wal_checkpoint` answered: WAL frames in the log and how many are in the database file. */
export interface WalCheckpoint {
  /** 1 when the checkpoint could not run (another connection was checkpointing). */
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
  /** Checkpoints the worker's timer has run so far. */
  readonly timed: number;
}

export const CHECKPOINT_INTERVAL_MS = 250;
/** The WAL file is cut back to this size when a write resets it after a complete checkpoint. */
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

// An inline CommonJS script: it runs unchanged from the compiled build and under tsx / vitest (which
// do not transform worker files). better-sqlite3 is resolved by the parent and passed as a path.
const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const checkpoint = () => {
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    return { busy: r.busy, log: r.log, checkpointed: r.checkpointed };
  } catch (err) {
    return { busy: 1, log: -1, checkpointed: -1 };
  }
};
let timed = 0;
const timer = workerData.intervalMs > 0 ? setInterval(() => { checkpoint(); timed++; }, workerData.intervalMs) : undefined;
parentPort.on('message', (m) => {
  if (m.kind === 'checkpoint') parentPort.postMessage({ id: m.id, result: { ...checkpoint(), timed } });
  else if (m.kind === 'close') {
    if (timer !== undefined) clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

export class WalCheckpointer {
  readonly #worker: Worker;
  readonly #pending = new Map<number, (r: WalCheckpoint | undefined) => void>();
  readonly #exited: Promise<void>;
  #next = 0;
  #alive = true;

  /**
   * Starts the worker on `file` (WAL mode already set). `onExit` is told when it ends without being
   * closed (it could not open the file, or failed): the caller then checkpoints on its own again.
   * `intervalMs` 0: no timer (checkpoints only when asked; tests).
   */
  constructor(file: string, onExit: (err: Error | undefined) => void, intervalMs = CHECKPOINT_INTERVAL_MS) {
    const module = DRIVER_MODULE;
    this.#worker = new Worker(SCRIPT, { eval: true, workerData: { file, module, intervalMs } });
    // A checkpoint worker must not keep a process alive that is otherwise done.
    this.#worker.unref();
    let failure: Error | undefined;
    this.#worker.on('error', (err) => { failure = err; });
    this.#worker.on('message', (m: { id?: number; result?: WalCheckpoint }) => {
      if (m.id === undefined) return;
      this.#pending.get(m.id)?.(m.result);
      this.#pending.delete(m.id);
      if (this.#pending.size === 0 && this.#alive) this.#worker.unref();
    });
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', () => {
        const unexpected = this.#alive;
        this.#alive = false;
        for (const done of this.#pending.values()) done(undefined);
        this.#pending.clear();
        if (unexpected) onExit(failure ?? new Error('WAL checkpoint worker stopped'));
        resolve();
      });
    });
  }

  /** A PASSIVE checkpoint now (undefined when the worker is gone). */
  checkpoint(): Promise<WalCheckpoint | undefined> {
    if (!this.#alive) return Promise.resolve(undefined);
    const id = this.#next++;
    this.#worker.ref(); // while an answer is awaited (see close)
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#worker.postMessage({ kind: 'checkpoint', id });
    });
  }

  /** Stops the timer and closes the worker's connection; resolves when the thread has ended. */
  async close(): Promise<void> {
    if (this.#alive) {
      this.#alive = false;
      // Referenced again while it ends: awaiting an unreferenced thread would let the process exit first.
      this.#worker.ref();
      this.#worker.postMessage({ kind: 'close' });
    }
    await this.#exited;
  }
}

/**
 * Turns the automatic checkpoints of the serving connections off and starts the worker on `file`. If
 * the worker ends on its own (it failed), the writer checkpoints on commit again, and `onNotice` says so.
 */
export function checkpointInBackground(
  file: string, writer: Database.Database, reader: Database.Database, onNotice?: (message: string) => void, intervalMs = CHECKPOINT_INTERVAL_MS,
): WalCheckpointer {
  for (const c of [writer, reader]) c.pragma('wal_autocheckpoint = 0');
  writer.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  return new WalCheckpointer(file, (err) => {
    if (writer.open) writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
    onNotice?.(`WAL checkpoints run on the main thread again: ${err?.message ?? 'the checkpoint worker stopped'}`);
  }, intervalMs);
}
