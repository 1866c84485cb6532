// PostgreSQL backend: sends reads to the read replicas (round robin) and everything else to the
// primary. A replica serves a read only once it has reported a content generation at least the
// store's floor: the newest generation this instance knows of (its own commits, announced commits
// of other instances, generations read from the primary). So a client never reads older data than
// it just wrote, and a response cached under generation G is never rendered from data before G.
// A replica's generation is checked in the background, at most once per `checkMs` while it lags;
// meanwhile reads go to the primary.
import type pg from 'pg';
import { SQL, run } from './statements.js';

export const REPLICA_CHECK_MS = 100;

interface Replica {
  readonly pool: pg.Pool;
  /** Last generation it reported; undefined when unknown (not checked yet, or it failed). */
  generation: number | undefined;
  checkedAt: number;
  checking: Promise<void> | undefined;
}

export class ReadRouter {
  readonly #primary: pg.Pool;
  readonly #replicas: Replica[];
  readonly #floor: () => number;
  readonly #checkMs: number;
  #next = 0;

  constructor(primary: pg.Pool, replicas: readonly pg.Pool[], floor: () => number, checkMs = REPLICA_CHECK_MS) {
    this.#primary = primary;
    this.#replicas = replicas.map((pool) => ({ pool, generation: undefined, checkedAt: -Infinity, checking: undefined }));
    this.#floor = floor;
    this.#checkMs = checkMs;
  }

  get primary(): pg.Pool {
    return this.#primary;
  }

  get replicaPools(): readonly pg.Pool[] {
    return this.#replicas.map((r) => r.pool);
  }

  /** Runs a read on a replica that is recent enough, else on the primary; a failed replica read is retried on the primary. */
  async read<T>(fn: (db: pg.Pool) => Promise<T>): Promise<T> {
    const replica = this.#pick();
    if (!replica) return fn(this.#primary);
    try {
      return await fn(replica.pool);
    } catch {
      // Down, restarting, or a query cancelled by recovery: ask again later; the primary answers now.
      replica.generation = undefined;
      replica.checkedAt = Date.now();
      return fn(this.#primary);
    }
  }

  /** Checks every replica's generation now (on open, and in tests). */
  async checkAll(): Promise<void> {
    await Promise.all(this.#replicas.map((r) => this.#check(r)));
  }

  #pick(): Replica | undefined {
    const n = this.#replicas.length;
    if (n === 0) return undefined;
    const floor = Math.max(0, this.#floor());
    const now = Date.now();
    const start = this.#next;
    this.#next = (start + 1) % n;
    for (let k = 0; k < n; k++) {
      const r = this.#replicas[(start + k) % n]!;
      // A replica's generation never goes back: once at the floor, it stays usable until the floor rises.
      if (r.generation !== undefined && r.generation >= floor) return r;
      if (r.checking === undefined && now - r.checkedAt >= this.#checkMs) void this.#check(r);
    }
    return undefined;
  }

  #check(r: Replica): Promise<void> {
    r.checking ??= (async () => {
      try {
        const [row] = await run<{ value: string }>(r.pool, SQL.generation);
        r.generation = row ? Number(row.value) : undefined;
      } catch {
        r.generation = undefined;
      } finally {
        r.checkedAt = Date.now();
        r.checking = undefined;
      }
    })();
    return r.checking;
  }
}
