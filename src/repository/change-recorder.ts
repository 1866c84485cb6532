// Repository layer: collects what one import does to each workspace (nodes inserted, subtrees removed) and
// reduces it to the event's created / changed / moved / removed lists, within CHANGE_NODE_LIMIT entries.
import { CHANGE_NODE_LIMIT, type ChangeEntry, type ChangedNode, type NewChange } from '../store/changes.js';

interface WorkspaceChanges {
  /** Nodes that existed before the import and were removed by it, by path. */
  readonly before: Map<string, ChangedNode>;
  /** Nodes the import inserted that are still there, by path. */
  readonly after: Map<string, ChangedNode>;
  truncated: boolean;
  /** Inserts and removals seen (the count of a truncated event). */
  operations: number;
}

export class ChangeRecorder {
  readonly #workspaces = new Map<string, WorkspaceChanges>();
  readonly #limit: number;

  constructor(limit = CHANGE_NODE_LIMIT) {
    this.#limit = limit;
  }

  #of(workspace: string): WorkspaceChanges {
    let w = this.#workspaces.get(workspace);
    if (!w) this.#workspaces.set(workspace, (w = { before: new Map(), after: new Map(), truncated: false, operations: 0 }));
    return w;
  }

  /** Marks the workspace as touched even if nothing ends up recorded for it. */
  touch(workspace: string): void {
    this.#of(workspace);
  }

  /** True once the workspace's lists are dropped: removals need not be listed any more. */
  isTruncated(workspace: string): boolean {
    return this.#of(workspace).truncated;
  }

  /** How many nodes of a subtree to list before a removal: one more than fits tells that it does not. */
  get listLimit(): number {
    return this.#limit + 1;
  }

  inserted(workspace: string, node: ChangedNode): void {
    const w = this.#of(workspace);
    w.operations++;
    if (w.truncated) return;
    w.after.set(node.path, node);
    this.#bound(w);
  }

  /** `nodes`: the subtree as listed before the removal (undefined or too many: not listed); `total`: rows removed. */
  removed(workspace: string, nodes: readonly ChangedNode[] | undefined, total: number): void {
    const w = this.#of(workspace);
    w.operations += total;
    if (w.truncated) return;
    if (nodes === undefined || nodes.length > this.#limit) return this.#truncate(w);
    for (const n of nodes) {
      // A node this import inserted leaves no trace; one that was there before is removed (for now).
      if (!w.after.delete(n.path)) w.before.set(n.path, n);
    }
    this.#bound(w);
  }

  #bound(w: WorkspaceChanges): void {
    if (w.before.size + w.after.size > this.#limit) this.#truncate(w);
  }

  #truncate(w: WorkspaceChanges): void {
    w.truncated = true;
    w.before.clear();
    w.after.clear();
  }

  /** One change per touched workspace, in the order they were first touched; none for a workspace left as it was. */
  changes(kind: NewChange['kind'], by?: string): NewChange[] {
    const out: NewChange[] = [];
    for (const [workspace, w] of this.#workspaces) {
      if (w.truncated) {
        out.push({ workspace, kind, nodes: [], truncated: true, count: w.operations, ...(by !== undefined ? { by } : {}) });
        continue;
      }
      const nodes = reduce(w);
      if (nodes.length > 0) out.push({ workspace, kind, nodes, truncated: false, count: nodes.length, ...(by !== undefined ? { by } : {}) });
    }
    return out;
  }
}

/**
 * A path removed and written again is `changed` when it keeps its id (its content may be the same:
 * imports replace nodes without comparing them); with another id it is `removed` plus `created`. A
 * new path holding the id of a removed node is that node `moved` (UUID collision policy `replace`).
 */
function reduce(w: WorkspaceChanges): ChangeEntry[] {
  const out: ChangeEntry[] = [];
  const gone = new Map(w.before);
  const removedIds = new Map<string, ChangedNode>();
  for (const [path, old] of w.before) if (!w.after.has(path)) removedIds.set(old.id, old);
  for (const [path, node] of w.after) {
    const old = gone.get(path);
    if (old !== undefined && old.id === node.id) {
      gone.delete(path);
      out.push({ op: 'changed', ...node });
      continue;
    }
    const origin = removedIds.get(node.id);
    if (origin !== undefined) {
      removedIds.delete(node.id);
      gone.delete(origin.path);
      out.push({ op: 'moved', ...node, from: origin.path });
      continue;
    }
    out.push({ op: 'created', ...node });
  }
  for (const old of gone.values()) out.push({ op: 'removed', ...old });
  return out;
}
