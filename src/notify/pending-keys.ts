// Notify layer: the keys waiting to be purged at one target, bounded. Past the bound the workspace
// holding the most keys is collapsed to its workspace keys (dependencies.ts `workspaceKey` and
// `touchedKey`): every answer that read anything of it carries `touchedKey`, so purging it drops at
// least what the node keys would have, only more. Memory stays bounded however far a target falls
// behind or however large a change is.
import type { ChangeEvent } from '../store/changes.js';
import { changeKeys, touchedKey, workspaceKey } from '../repository/dependencies.js';
import type { PurgeBatch } from './purge-target.js';

export class PendingKeys {
  readonly #limit: number;
  /** Keys by workspace; a collapsed workspace holds just its two workspace keys. */
  readonly #byWorkspace = new Map<string, Set<string>>();
  readonly #collapsed = new Set<string>();
  #size = 0;
  #sequence = 0;
  #at = '';

  /** `limit`: most keys held (at least 2 per workspace are always kept). */
  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#size;
  }

  add(event: ChangeEvent): void {
    if (event.sequence > this.#sequence) {
      this.#sequence = event.sequence;
      this.#at = event.at;
    }
    const ws = event.workspace;
    if (this.#collapsed.has(ws)) return;
    let keys = this.#byWorkspace.get(ws);
    if (keys === undefined) this.#byWorkspace.set(ws, keys = new Set());
    const before = keys.size;
    for (const k of changeKeys(event)) keys.add(k);
    this.#size += keys.size - before;
    while (this.#size > this.#limit && this.#collapseLargest()) { /* until within the bound */ }
  }

  /** Keys that no change event names (an endpoint's, when its definition changed), under their own group. */
  addKeys(group: string, keys: Iterable<string>): void {
    let set = this.#byWorkspace.get(group);
    if (set === undefined) this.#byWorkspace.set(group, set = new Set());
    const before = set.size;
    for (const k of keys) set.add(k);
    this.#size += set.size - before;
  }

  /** Everything pending, emptied. */
  take(): PurgeBatch {
    const keys: string[] = [];
    for (const set of this.#byWorkspace.values()) for (const k of set) keys.push(k);
    const batch = { keys, sequence: this.#sequence, at: this.#at };
    this.#byWorkspace.clear();
    this.#collapsed.clear();
    this.#size = 0;
    return batch;
  }

  /** False when nothing is left to collapse (more workspaces than the bound allows for). */
  #collapseLargest(): boolean {
    let largest: string | undefined;
    let most = 2;
    for (const [ws, set] of this.#byWorkspace) {
      if (!this.#collapsed.has(ws) && set.size > most) {
        largest = ws;
        most = set.size;
      }
    }
    if (largest === undefined) return false;
    this.#byWorkspace.set(largest, new Set([workspaceKey(largest), touchedKey(largest)]));
    this.#collapsed.add(largest);
    this.#size -= most - 2;
    return true;
  }
}
