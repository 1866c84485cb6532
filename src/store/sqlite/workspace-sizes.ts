// SQLite backend: node counts per workspace for the query index's threshold decision, kept current
// from the change events instead of counted again after every write (a COUNT(*) over a million-row
// workspace cost ~2 ms of main thread per write). A workspace is counted once; each later event
// adds its created nodes and subtracts its removed ones; a truncated event (a large import, whose
// lists are left out) or a change log that went back (another database file) makes it count again.
import type Database from 'better-sqlite3';
import { CHANGES_PAGE_MAX } from '../changes.js';
import type { SqliteChanges } from './changes.js';

export class WorkspaceSizes {
  #counts = new Map<string, number>();
  /** Sequence of the last change event the counts include. */
  #applied = 0;
  /** Generation the counts were brought up to date at (-1: never). */
  #generation = -1;

  constructor(
    private readonly db: Database.Database,
    private readonly changes: SqliteChanges,
    private readonly count: (workspace: string) => number,
  ) {}

  /** The node count of `workspace` as of `generation` (or later). */
  size(workspace: string, generation: number): number {
    const known = this.#counts.get(workspace);
    if (generation === this.#generation && known !== undefined) return known;
    let n = 0;
    // One read transaction: the events applied and a count taken now are of the same snapshot.
    this.db.transaction(() => {
      this.#catchUp();
      const counted = this.#counts.get(workspace);
      n = counted ?? this.count(workspace);
      if (counted === undefined) this.#counts.set(workspace, n);
    })();
    this.#generation = generation;
    return n;
  }

  #catchUp(): void {
    const latest = this.changes.latest();
    // Nothing counted yet (or another database, or one restored: nothing known holds): start from now.
    if (this.#counts.size === 0 || latest < this.#applied) {
      this.#counts.clear();
      this.#applied = latest;
      return;
    }
    for (;;) {
      const page = this.changes.since(this.#applied, CHANGES_PAGE_MAX);
      for (const e of page) {
        const n = this.#counts.get(e.workspace);
        if (n === undefined) continue;
        if (e.truncated) this.#counts.delete(e.workspace);
        else this.#counts.set(e.workspace, n + e.created.length - e.removed.length);
      }
      if (page.length > 0) this.#applied = page[page.length - 1]!.sequence;
      if (page.length < CHANGES_PAGE_MAX) return;
    }
  }
}
