// SQLite backend: what an import transaction knows of one workspace without asking the database: the
// nodes it wrote (some still buffered, see multi-row-insert.ts) and the paths below which nothing else
// can be. writeImport asks per node whether its path is taken and whose its uuid is; below a node this
// transaction created, or in a workspace that was empty when it began, the answer is known.
//
// What it relies on: every stored node's parent is stored (imports create missing ancestors and
// delete whole subtrees), so nothing lies below a path that holds no node.

const isAtOrBelow = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);

export class KnownNodes {
  /** Position of the node at a path, or null when it is known to hold none. */
  readonly #positions = new Map<string, number | null>();
  /** Path of the node with an id, or null when no node has it. */
  readonly #ids = new Map<string, string | null>();
  /** Paths below which (themselves included) every node is in `#positions`. */
  readonly #complete = new Set<string>();
  /** The workspace held no node when the transaction began: every node in it is known. */
  readonly #whole: boolean;
  /** Highest position of the nodes this transaction inserted, by parent path. */
  readonly #maxChild = new Map<string, number>();
  /** This transaction deleted nodes here: the last commit no longer tells what it does not know. */
  #removedAny = false;

  constructor(emptyAtStart: boolean) {
    this.#whole = emptyAtStart;
  }

  /** The position at `path` (null: no node), or undefined when only the database knows. */
  position(path: string): number | null | undefined {
    const known = this.#positions.get(path);
    if (known !== undefined) return known;
    return this.#isComplete(path) ? null : undefined;
  }

  /** The path of the node with `id` (null: none), or undefined when only the database knows. */
  pathOf(id: string): string | null | undefined {
    const known = this.#ids.get(id);
    if (known !== undefined) return known;
    return this.#whole ? null : undefined;
  }

  /** Remembers what the database answered. */
  learnPosition(path: string, position: number | null): void {
    this.#positions.set(path, position);
  }

  learnId(id: string, path: string | null): void {
    this.#ids.set(id, path);
  }

  inserted(id: string, path: string, parentPath: string, position: number): void {
    this.#positions.set(path, position);
    this.#ids.set(id, path);
    const max = this.#maxChild.get(parentPath);
    if (max === undefined || position > max) this.#maxChild.set(parentPath, position);
    // A new node has no descendants but those this transaction writes (see the file's comment); below a
    // complete path, nothing more to record.
    if (!this.#whole && !this.#isComplete(parentPath)) this.#complete.add(path);
  }

  /**
   * True while the transaction has only inserted into this workspace: what it does not know (a path
   * or uuid it did not write) is then as the last commit holds it, and may be read there instead of
   * behind the transaction's own writes (a worker's connection answers after the rows it was sent).
   */
  get onlyInserted(): boolean {
    return !this.#removedAny;
  }

  /** The highest position this transaction gave a child of `parentPath` (undefined: none). */
  maxInsertedChild(parentPath: string): number | undefined {
    return this.#maxChild.get(parentPath);
  }

  /** The subtree at `path` is gone (and the database's rows with it). */
  removed(path: string): void {
    this.#removedAny = true;
    for (const p of this.#positions.keys()) if (isAtOrBelow(p, path)) this.#positions.set(p, null);
    for (const [id, p] of this.#ids) if (p !== null && isAtOrBelow(p, path)) this.#ids.set(id, null);
    for (const p of this.#complete) if (isAtOrBelow(p, path)) this.#complete.delete(p);
    this.#complete.add(path);
  }

  /** True when every node at or below some ancestor-or-self of `path` is known. */
  #isComplete(path: string): boolean {
    if (this.#whole) return true;
    if (this.#complete.size === 0) return false;
    for (let p = path; p.length > 1; p = p.slice(0, p.lastIndexOf('/')) || '/') {
      if (this.#complete.has(p)) return true;
    }
    return false;
  }
}
