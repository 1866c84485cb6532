// Repository layer: the one change event of a Nodes API write. Unlike an import (which replaces subtrees
// and learns afterwards what they were), a nodes write knows each node's fate as it happens, so the
// lists are exact: one entry per node id, the later operation folded into the earlier one.
import { CHANGE_NODE_LIMIT, type ChangeEntry, type ChangedNode, type NewChange } from '../store/changes.js';

export class NodeChangeList {
  readonly #entries = new Map<string, ChangeEntry>();
  readonly #limit: number;
  #truncated = false;
  #operations = 0;

  constructor(limit = CHANGE_NODE_LIMIT) {
    this.#limit = limit;
  }

  /** How many nodes of a subtree to list: one more than fits tells that it does not. */
  get listLimit(): number {
    return this.#limit + 1;
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  get count(): number {
    return this.#truncated ? this.#operations : this.#entries.size;
  }

  created(node: ChangedNode): void {
    this.#add({ op: 'created', id: node.id, path: node.path, type: node.type });
  }

  changed(node: ChangedNode): void {
    const prev = this.#entries.get(node.id);
    // Created or moved earlier in this write: that entry already tells consumers to look again.
    if (prev !== undefined) return this.#set({ ...prev, path: node.path, type: node.type });
    this.#add({ op: 'changed', id: node.id, path: node.path, type: node.type });
  }

  /** `from`: where the node was (its own path when only its place among siblings changed). */
  moved(node: ChangedNode, from: string): void {
    const prev = this.#entries.get(node.id);
    if (prev?.op === 'created') return this.#set({ ...prev, path: node.path, type: node.type });
    const origin = prev?.op === 'moved' ? prev.from ?? from : from;
    this.#add({ op: 'moved', id: node.id, path: node.path, type: node.type, from: origin });
  }

  /** A subtree listed before its removal; undefined (or longer than the limit) truncates the event. */
  removed(nodes: readonly ChangedNode[] | undefined, total: number): void {
    if (nodes === undefined || nodes.length > this.#limit) {
      this.#operations += total;
      return this.#truncate();
    }
    for (const n of nodes) {
      const prev = this.#entries.get(n.id);
      if (prev?.op === 'created') {
        this.#entries.delete(n.id); // made and unmade in one write: no trace
        continue;
      }
      this.#add({ op: 'removed', id: n.id, path: prev?.op === 'moved' ? prev.from ?? n.path : n.path, type: n.type });
    }
  }

  /** Marks the event as too large to list (the whole workspace counts as changed). */
  truncate(operations: number): void {
    this.#operations += operations;
    this.#truncate();
  }

  #add(entry: ChangeEntry): void {
    this.#operations++;
    if (this.#truncated) return;
    this.#entries.delete(entry.id); // a later operation's entry replaces (and follows) the earlier one
    this.#entries.set(entry.id, entry);
    if (this.#entries.size > this.#limit) this.#truncate();
  }

  #set(entry: ChangeEntry): void {
    if (!this.#truncated) this.#entries.set(entry.id, entry);
  }

  #truncate(): void {
    this.#truncated = true;
    this.#entries.clear();
  }

  /** The event, or undefined when the write changed nothing. */
  change(workspace: string, by: string): NewChange | undefined {
    if (this.#truncated) return { workspace, kind: 'nodes', by, nodes: [], truncated: true, count: this.#operations };
    if (this.#entries.size === 0) return undefined;
    const nodes = [...this.#entries.values()];
    return { workspace, kind: 'nodes', by, nodes, truncated: false, count: nodes.length };
  }
}
