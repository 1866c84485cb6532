// Store layer: what an import transaction knows of one workspace without asking the database, in
// memory that does not grow with the import (both backends' batched ImportTx). writeImport asks per
// node whose its uuid is, and per document root whether its path is taken. Below a node this
// transaction created, or in a workspace that was empty when it began, the answer is mostly known:
// - the paths and ids it inserted are fingerprints (fingerprints.ts): "not inserted" is exact, a
//   "maybe" is asked of the database behind the transaction's own writes (`own`);
// - the database's answers (prefetched uuids, positions) are remembered up to REMEMBERED of each, then
//   forgotten (asked again);
// - the highest position given under a parent likewise, forgotten past REMEMBERED parents.
// What it relies on: every stored node's parent is stored (imports create missing ancestors and
// delete whole subtrees), so nothing lies below a path that holds no node.
import { Fingerprints } from './fingerprints.js';

/**
 * Database answers (and parents' highest positions) remembered, of each kind: several prefetches' worth
 * (a uuid read from a file may hold on to the text around it, so not more).
 */
export const REMEMBERED = 10_000;

/** The answer known, or where to ask: the last commit may do (`db`), or only behind this transaction's own writes (`own`). */
export type Known<T> = { readonly known: T | null } | 'db' | 'own';

const isAtOrBelow = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);

export class KnownNodes {
  /** Position of the node at a path as the database answered, or null when it holds none. */
  readonly #positions = new Map<string, number | null>();
  /** Path of the node with an id as the database answered, or null when no node has it. */
  readonly #ids = new Map<string, string | null>();
  readonly #insertedPaths = new Fingerprints();
  readonly #insertedIds = new Fingerprints();
  /** Paths below which (themselves included) every node is one this transaction inserted. */
  readonly #complete = new Set<string>();
  /** The workspace held no node when the transaction began: every node in it is this transaction's. */
  readonly #whole: boolean;
  /** Highest position of the nodes this transaction inserted, by parent path (some forgotten: `#maxForgotten`). */
  readonly #maxChild = new Map<string, number>();
  #maxForgotten = false;
  /** This transaction deleted nodes here: the last commit no longer tells what it does not know. */
  #removedAny = false;

  readonly #remembered: number;

  /** `remembered`: answers kept of each kind (tests make it small). */
  constructor(emptyAtStart: boolean, remembered = REMEMBERED) {
    this.#whole = emptyAtStart;
    this.#remembered = remembered;
  }

  /** The position at `path` (null: no node), or where to ask. */
  position(path: string): Known<number> {
    const known = this.#positions.get(path);
    if (known !== undefined) return { known };
    if (this.#insertedPaths.mayHave(path)) return 'own';
    return this.#isComplete(path) ? { known: null } : 'db';
  }

  /** The path of the node with `id` (null: none), or where to ask. */
  pathOf(id: string): Known<string> {
    const known = this.#ids.get(id);
    if (known !== undefined) return { known };
    if (this.#insertedIds.mayHave(id)) return 'own';
    return this.#whole ? { known: null } : 'db';
  }

  /** Remembers what the database answered (a batch's worth at least; older answers may be forgotten). */
  learnPosition(path: string, position: number | null): void {
    if (this.#positions.size >= this.#remembered) this.#positions.clear();
    this.#positions.set(path, position);
  }

  learnId(id: string, path: string | null): void {
    if (this.#ids.size >= this.#remembered) this.#ids.clear();
    this.#ids.set(id, path);
  }

  /** Makes room for `count` answers about to be learnt together (a prefetch), so that none is forgotten before use. */
  reserveIds(count: number): void {
    if (this.#ids.size + count > this.#remembered) this.#ids.clear();
  }

  inserted(id: string, path: string, parentPath: string, position: number): void {
    this.#insertedPaths.add(path);
    this.#insertedIds.add(id);
    // A learnt answer about this path or id is stale now.
    if (this.#positions.size > 0) this.#positions.delete(path);
    if (this.#ids.size > 0) this.#ids.delete(id);
    const max = this.#maxChild.get(parentPath);
    if (max === undefined) {
      if (this.#maxChild.size >= this.#remembered) {
        this.#maxChild.clear();
        this.#maxForgotten = true;
      }
      this.#maxChild.set(parentPath, position);
    } else if (position > max) this.#maxChild.set(parentPath, position);
    // A new node has no descendants but those this transaction writes (see the file's comment); below a
    // complete path, nothing more to record.
    if (!this.#whole && !this.#isComplete(parentPath)) this.#complete.add(path);
  }

  /**
   * True while the transaction has only inserted into this workspace: what it did not write is then as
   * the last commit holds it, and may be read there instead of behind the transaction's own writes.
   */
  get onlyInserted(): boolean {
    return !this.#removedAny;
  }

  /**
   * The highest position this transaction gave a child of `parentPath`: undefined when it gave none,
   * 'own' when that may have been forgotten (ask behind the transaction's writes).
   */
  maxInsertedChild(parentPath: string): number | undefined | 'own' {
    const max = this.#maxChild.get(parentPath);
    if (max !== undefined) return max;
    return this.#maxForgotten ? 'own' : undefined;
  }

  /** The subtree at `path` is gone (and the database's rows with it). */
  removed(path: string): void {
    this.#removedAny = true;
    for (const p of this.#positions.keys()) if (isAtOrBelow(p, path)) this.#positions.set(p, null);
    for (const [id, p] of this.#ids) if (p !== null && isAtOrBelow(p, path)) this.#ids.set(id, null);
    for (const p of this.#complete) if (isAtOrBelow(p, path)) this.#complete.delete(p);
    this.#complete.add(path);
  }

  /** True when every node at or below some ancestor-or-self of `path` is one this transaction inserted. */
  #isComplete(path: string): boolean {
    if (this.#whole) return true;
    if (this.#complete.size === 0) return false;
    for (let p = path; p.length > 1; p = p.slice(0, p.lastIndexOf('/')) || '/') {
      if (this.#complete.has(p)) return true;
    }
    return false;
  }
}
