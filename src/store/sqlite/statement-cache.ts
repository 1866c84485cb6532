// SQLite backend: prepared statements of compiled queries, by SQL text (the same query shape gives the
// same text). The shapes (filters, `in` lists, orders) are the caller's, so the cache is bounded in bytes.
import type Database from 'better-sqlite3';
import { ByteLru, stringBytes, type ByteLruStats } from '../../cache/byte-lru.js';

const STATEMENT_CACHE_BYTES = 8 * 1024 * 1024;
/** What SQLite's compiled program of a statement costs beyond its text, roughly. */
const STATEMENT_OVERHEAD = 4_096;

export class StatementCache {
  readonly #lru = new ByteLru<string, Database.Statement>(STATEMENT_CACHE_BYTES);

  get(db: Database.Database, sql: string): Database.Statement {
    let stmt = this.#lru.get(sql);
    if (stmt === undefined) {
      stmt = db.prepare(sql);
      // The compiled program grows with the text: count it several times over.
      this.#lru.set(sql, stmt, STATEMENT_OVERHEAD + 4 * stringBytes(sql));
    }
    return stmt;
  }

  clear(): void {
    this.#lru.clear();
  }

  stats(): ByteLruStats {
    return this.#lru.stats();
  }
}
