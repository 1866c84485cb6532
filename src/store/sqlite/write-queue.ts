// SQLite backend: the store's writes, one at a time in this process. better-sqlite3 is synchronous
// but a write's body awaits between statements, so two bodies on the writer connection would share
// its transaction: every write (content, schedules, the query index's segments) waits for the
// previous one to commit or roll back.
import type Database from 'better-sqlite3';
import { StoreClosedError } from '../store-faults.js';

export class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /**
   * @param writer the writer connection, undefined once the store is closed
   * @param written called after every content write, committed or not
   */
  constructor(private readonly writer: () => Database.Database | undefined, private readonly written: () => void) {}

  /** Resolves once every queued write has ended. */
  async idle(): Promise<void> {
    await this.#tail.catch(() => undefined);
  }

  /** A content write's turn: queued behind the others, whichever connection it writes through. */
  exclusive<T>(body: () => Promise<T>): Promise<T> {
    return this.#queue(async () => {
      this.#open();
      return body();
    }, true);
  }

  /** A write in one IMMEDIATE transaction on the writer (other processes' writers wait too). */
  transaction<T>(body: (db: Database.Database) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const db = this.#open();
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await body(db);
        db.exec('COMMIT');
        return result;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    });
  }

  /** A write of no content (the query index's segments, webhook cursors): queued with the content writes. */
  segment<T>(fn: (db: Database.Database) => T): Promise<T> {
    return this.#queue(async () => fn(this.#open()), false);
  }

  #open(): Database.Database {
    const db = this.writer();
    if (!db) throw new StoreClosedError('SqliteStore is not open');
    return db;
  }

  #queue<T>(body: () => Promise<T>, content: boolean): Promise<T> {
    const run = this.#tail.then(body).finally(() => { if (content) this.written(); });
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
