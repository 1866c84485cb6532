// SQLite backend: the store's writes, one at a time in this process. better-sqlite3 is synchronous
// but a write's body awaits between statements, so two bodies on the writer connection would share
// its transaction: every write (content, schedules, the query index's segments) waits for the
// previous one to commit or roll back. Stores of one process on one file share their turns: a body
// awaits between its statements, and another store's BEGIN IMMEDIATE meanwhile would block this
// thread (busy_timeout) on a lock that only this thread can release.
import type Database from 'better-sqlite3';
import { StoreClosedError } from '../store-faults.js';

interface Turns {
  tail: Promise<unknown>;
  stores: number;
}

/** The turns of each database file open in this process, by path. */
const FILES = new Map<string, Turns>();

export class WriteQueue {
  #turns: Turns = { tail: Promise.resolve(), stores: 1 };
  #file: string | undefined;

  /**
   * @param writer the writer connection, undefined once the store is closed
   * @param written called after every content write, committed or not
   */
  constructor(private readonly writer: () => Database.Database | undefined, private readonly written: () => void) {}

  /** From now on, writes take turns with those of every other store of this process on `file`. */
  share(file: string): void {
    let turns = FILES.get(file);
    if (turns === undefined) FILES.set(file, (turns = { tail: this.#turns.tail, stores: 0 }));
    turns.stores++;
    this.#turns = turns;
    this.#file = file;
  }

  /** Back to turns of its own (after close). */
  unshare(): void {
    if (this.#file === undefined) return;
    if (--this.#turns.stores === 0) FILES.delete(this.#file);
    this.#turns = { tail: this.#turns.tail, stores: 1 };
    this.#file = undefined;
  }

  /** Resolves once every queued write has ended. */
  async idle(): Promise<void> {
    await this.#turns.tail.catch(() => undefined);
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
    const run = this.#turns.tail.then(body).finally(() => { if (content) this.written(); });
    this.#turns.tail = run.catch(() => undefined);
    return run;
  }
}
