// SQLite backend: a large import's connection in a worker thread (see import-connection.ts). The
// worker knows no Petal code: it opens the database and runs the statements it is sent, in order, so
// every SQL text stays with the module that owns it. Row inserts are sent in batches without waiting
// for an answer, at most WRITES_IN_FLIGHT batches ahead of the worker (memory stays bounded when the
// worker is the slower side); a failed batch fails every later call, and the caller rolls back.
// Crash safety is SQLite's: the transaction is the worker connection's, and a killed process leaves
// the database as it was before BEGIN.
import { DRIVER_MODULE } from './driver.js';
import { Worker } from 'node:worker_threads';
import type { ImportConnection, RowBuffer, StatementCall } from './import-connection.js';
import { BATCH_BYTES, EncodedRows, TAG_NUMBER, TAG_TEXT, type EncodedBatch } from './encoded-rows.js';
import { ROWS_PER_STATEMENT } from './multi-row-insert.js';

/** Batches of row inserts sent and not yet run by the worker, before `write` waits. */
const WRITES_IN_FLIGHT = 8;
/** Buffers kept for the next batches: as many as two tables' batches in flight (more would be memory held for nothing). */
const FREE_BUFFERS = 2 * WRITES_IN_FLIGHT;

/**
 * The worker's young generation (V8's default grows to 32 MB and more): what it allocates, a batch's
 * values, dies with the statement that binds them, so a small one costs no time and keeps that memory
 * out of the import's peak (POST /.rest/import/v1 of 100k YAML nodes: 244-248 against 235-241 MB).
 */
const WORKER_YOUNG_GENERATION_MB = 8;
/** The worker's connection: as the store's (statements.ts), with the page cache of a large import. */
const PRAGMAS = ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 5000', 'cache_size = -16384', 'temp_store = MEMORY',
  // No checkpoint inside COMMIT: the thread runs one after it (see close), while the import's caller goes on.
  'wal_autocheckpoint = 0'];

// An inline CommonJS script: it runs unchanged from the compiled build and under tsx / vitest (which
// do not transform worker files). better-sqlite3 is resolved by the parent and passed as a path.
const SCRIPT = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
for (const p of workerData.pragmas) db.pragma(p);
const prepared = new Map();
const statement = (sql) => {
  let s = prepared.get(sql);
  if (s === undefined) prepared.set(sql, (s = db.prepare(sql)));
  return s;
};
// Rows of a batch (encoded-rows.ts): a tag byte, then an 8-byte number, a 4-byte length and UTF-8
// bytes, or nothing (null); bound ROWS_PER_STATEMENT rows per statement.
const texts = new Map();
const insertText = (head, width, rows) => {
  const key = rows + '\u0000' + head;
  let sql = texts.get(key);
  if (sql === undefined) {
    const one = '(' + new Array(width).fill('?').join(', ') + ')';
    texts.set(key, (sql = head + ' VALUES ' + new Array(rows).fill(one).join(', ')));
  }
  return sql;
};
const insertBatch = (b) => {
  const data = Buffer.from(b.data, 0, b.bytes);
  const per = workerData.rowsPerStatement;
  let at = 0;
  for (let first = 0; first < b.rows; first += per) {
    const rows = Math.min(per, b.rows - first);
    const values = new Array(rows * b.width);
    for (let i = 0; i < values.length; i++) {
      const tag = data[at];
      if (tag === ${TAG_TEXT}) {
        const n = data.readUInt32LE(at + 1);
        values[i] = data.toString('utf8', at + 5, at + 5 + n);
        at += 5 + n;
      } else if (tag === ${TAG_NUMBER}) {
        values[i] = data.readDoubleLE(at + 1);
        at += 9;
      } else {
        values[i] = null;
        at += 1;
      }
    }
    statement(insertText(b.head, b.width, rows)).run(values);
  }
};
let failed;
const asReply = (err) => ({ message: err && err.message ? err.message : String(err), code: err && err.code });
parentPort.on('message', (m) => {
  if (m.op === 'write') {
    if (failed === undefined) {
      try {
        for (const b of m.batches) insertBatch(b);
        for (const [sql, params] of m.calls) statement(sql).run(params);
      } catch (err) {
        failed = err;
      }
    }
    // The batches' buffers go back to be filled again.
    const buffers = m.batches.map((b) => b.data);
    parentPort.postMessage({ ack: true, buffers }, buffers);
    return;
  }
  if (m.op === 'close') {
    try { if (db.inTransaction) db.exec('ROLLBACK'); } catch {}
    // PASSIVE: never waits for (nor blocks) readers or the next writer; SQLite's own crash safety.
    if (m.checkpoint) try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
    db.close();
    parentPort.close();
    return;
  }
  let reply;
  try {
    if (m.op === 'rollback') {
      if (db.inTransaction) db.exec('ROLLBACK');
      reply = { result: null };
    } else {
      if (failed !== undefined) throw failed;
      if (m.op === 'get') reply = { result: statement(m.sql).get(m.params) };
      else if (m.op === 'all') reply = { result: statement(m.sql).all(m.params) };
      else if (m.op === 'run') reply = { result: { changes: statement(m.sql).run(m.params).changes } };
      else { db.exec(m.sql); reply = { result: null }; }
    }
  } catch (err) {
    reply = { error: asReply(err) };
  }
  parentPort.postMessage({ id: m.id, ...reply });
});
`;

interface Reply {
  readonly id?: number;
  readonly ack?: boolean;
  readonly buffers?: ArrayBuffer[];
  readonly result?: unknown;
  readonly error?: { readonly message: string; readonly code?: string };
}

/** An error the worker's SQLite raised, with its result code (store-faults.ts reads it). */
export class ImportWorkerError extends Error {
  constructor(message: string, readonly code: string | undefined) {
    super(message);
    this.name = 'SqliteError';
  }
}

export class WorkerImportConnection implements ImportConnection {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #waiting: (() => void)[] = [];
  /** Batch buffers the worker gave back. */
  readonly #free: Buffer[] = [];
  readonly #exited: Promise<void>;
  #next = 0;
  #inFlight = 0;
  /** Set when the thread ended: every call fails with it. */
  #gone: Error | undefined;

  /** Starts the worker on an existing database file (migrated by the store). */
  constructor(file: string) {
    const module = DRIVER_MODULE;
    this.#worker = new Worker(SCRIPT, {
      eval: true,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      workerData: { file, module, pragmas: PRAGMAS, rowsPerStatement: ROWS_PER_STATEMENT },
    });
    let failure: Error | undefined;
    this.#worker.on('error', (err) => { failure = err; });
    this.#worker.on('message', (m: Reply) => {
      if (m.ack === true) {
        for (const data of m.buffers ?? []) if (this.#free.length < FREE_BUFFERS && data.byteLength >= BATCH_BYTES) this.#free.push(Buffer.from(data));
        this.#inFlight--;
        this.#waiting.shift()?.();
        return;
      }
      const call = m.id === undefined ? undefined : this.#pending.get(m.id);
      if (call === undefined) return;
      this.#pending.delete(m.id!);
      if (m.error !== undefined) call.reject(new ImportWorkerError(m.error.message, m.error.code));
      else call.resolve(m.result);
    });
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', () => {
        this.#gone = failure ?? new Error('the import worker stopped');
        for (const call of this.#pending.values()) call.reject(this.#gone);
        this.#pending.clear();
        for (const wake of this.#waiting.splice(0)) wake();
        resolve();
      });
    });
  }

  rows(head: string, width: number, bufferRows: number): RowBuffer {
    return new EncodedRows(head, width, bufferRows, (bytes) => {
      const free = this.#free.pop();
      return free !== undefined && free.length >= bytes ? free : Buffer.allocUnsafeSlow(bytes);
    });
  }

  async write(buffers: readonly RowBuffer[], calls: readonly StatementCall[] = []): Promise<void> {
    if (this.#gone) throw this.#gone;
    const batches: EncodedBatch[] = [];
    for (const b of buffers) {
      if (!(b instanceof EncodedRows)) throw new TypeError('a row buffer of another connection');
      const batch = b.take();
      if (batch !== undefined) batches.push(batch);
    }
    if (batches.length === 0 && calls.length === 0) return;
    this.#inFlight++;
    // The batches' bytes are moved to the worker, not copied.
    this.#worker.postMessage({ op: 'write', batches, calls }, batches.map((b) => b.data));
    while (this.#inFlight > WRITES_IN_FLIGHT && this.#gone === undefined) await new Promise<void>((wake) => this.#waiting.push(wake));
    if (this.#gone) throw this.#gone;
  }

  get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return this.#call('get', sql, params) as Promise<T | undefined>;
  }

  all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.#call('all', sql, params) as Promise<T[]>;
  }

  run(sql: string, params: readonly unknown[] = []): Promise<{ changes: number }> {
    return this.#call('run', sql, params) as Promise<{ changes: number }>;
  }

  async exec(sql: string): Promise<void> {
    await this.#call('exec', sql, []);
  }

  /** Rolls the open transaction back, whatever failed before (a no-op when the thread is gone). */
  async rollback(): Promise<void> {
    if (this.#gone) return;
    await this.#call('rollback', '', []);
  }

  /**
   * Ends the thread (rolling back a transaction still open); resolves when it has ended. With
   * `checkpoint`, the thread first copies the WAL's pages into the database file (after a COMMIT: the
   * caller need not wait for it, the store's close does).
   */
  async close(options: { checkpoint?: boolean } = {}): Promise<void> {
    if (this.#gone === undefined) this.#worker.postMessage({ op: 'close', checkpoint: options.checkpoint === true });
    await this.#exited;
  }

  /** Stops the thread at once, as a crash of it would (tests). */
  async terminate(): Promise<void> {
    await this.#worker.terminate();
    await this.#exited;
  }

  #call(op: 'get' | 'all' | 'run' | 'exec' | 'rollback', sql: string, params: readonly unknown[]): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ op, id, sql, params });
    });
  }
}
