// Store layer (query index): the loaded workspaces, kept current from the store's change events.
// Each workspace is an immutable base segment (loaded once) plus a small delta (delta.ts). When the
// store's generation moves, the index reads the events after the last one applied and applies them
// in place: O(nodes changed), one round trip for their current rows. Only a workspace that an event
// cannot describe (truncated: a large import) is dropped and loaded again on its next query; one
// whose delta grew past the threshold is rebuilt in the background while base + delta keep serving.
// Event reads and applications run one at a time (`#serial`), so none is missed or interleaved.
// It reads the events through its ColumnSource rather than the process's change follower (repository/change-follower.ts, a layer above):
// the index lives below the ContentStore interface, on the connection (or replica) its rows come from.
import { CHANGES_PAGE_MAX, type ChangeEvent } from '../changes.js';
import type { ColumnSource } from './column-source.js';
import { applyEvents, deltaNodes, EMPTY_DELTA, namedIds, namedNodes, type Delta } from './delta.js';
import type { Workspace } from './workspace.js';

/** What a query works on: a base and the delta of one moment. */
export interface Segment {
  readonly base: Workspace;
  readonly delta: Delta;
}

/** A full load, an in-place application, a background rebuild, a dropped workspace or a persisted segment's fate, for the log. */
export interface QueryIndexEvent {
  readonly kind: 'load' | 'apply' | 'rebuild' | 'drop' | 'persist';
  readonly workspace: string;
  readonly message: string;
}

export interface LiveWorkspacesStats {
  /** Full workspace loads (first use, rebuilds, reloads after a drop). */
  readonly loads: number;
  /** Change events applied in place. */
  readonly appliedChanges: number;
  /** Nodes the loaded workspaces' deltas hold now (tombstones and records). */
  readonly deltaNodes: number;
  /** Estimated bytes of the deltas' records. */
  readonly deltaBytes: number;
  /** Background rebuilds started (delta past the threshold). */
  readonly rebuilds: number;
  /** Workspaces dropped for a truncated event. */
  readonly drops: number;
}

/**
 * A workspace is rebuilt once its delta holds more nodes than this. Every query re-evaluates the
 * matching delta records per record (cached per delta version), and every application copies the
 * tombstone bit set: at 5,000 nodes that stays around a millisecond, and 2 % of a large workspace
 * keeps the rebuild (seconds, and a second copy of the base while it loads) rare: at 1M nodes it
 * comes after 20,000 changed nodes, about 7 minutes of 50 single-node writes per second.
 */
export function rebuildThreshold(size: number): number {
  return Math.max(5_000, Math.ceil(size * 0.02));
}

interface State {
  segment: Segment;
  /** Sequence of the last event applied (or known to be in the base). */
  applied: number;
  rebuilding: boolean;
}

export interface LiveWorkspacesOptions {
  /**
   * Reads a workspace's base segment (node table and property names), whose `floor` is the change
   * sequence it reflects (read before the table from SQL; a persisted table's own): the events after
   * it are applied on top. A rebuild asks for a `fresh` one (a persisted table would bring back the
   * delta that asked for the rebuild).
   */
  readonly readBase: (workspace: string, fresh: boolean) => Promise<Workspace>;
  /** A base is no longer used: its cached structures can go. */
  readonly retire: (base: Workspace) => void;
  /** Cached records of these row ids of the base may be stale. */
  readonly stale: (base: Workspace, nids: readonly number[]) => void;
  /** Rebuild also when the deltas' records exceed these bytes. */
  readonly maxDeltaBytes: number;
  readonly onEvent?: ((event: QueryIndexEvent) => void) | undefined;
}

export class LiveWorkspaces {
  #states = new Map<string, Promise<State>>();
  /** Loaded workspaces that the next sync brings up to date. */
  #ready = new Map<string, State>();
  #queue: Promise<unknown> = Promise.resolve();
  #loads = 0;
  #applied = 0;
  #rebuilds = 0;
  #drops = 0;

  constructor(private readonly source: ColumnSource, private readonly o: LiveWorkspacesOptions) {}

  stats(): LiveWorkspacesStats {
    let nodes = 0;
    let bytes = 0;
    for (const s of this.#ready.values()) {
      nodes += deltaNodes(s.segment.delta);
      bytes += s.segment.delta.extraBytes;
    }
    return { loads: this.#loads, appliedChanges: this.#applied, deltaNodes: nodes, deltaBytes: bytes, rebuilds: this.#rebuilds, drops: this.#drops };
  }

  /** The workspace's current segment, loading it on first use. */
  async segment(workspace: string): Promise<Segment> {
    let s = this.#states.get(workspace);
    if (!s) {
      const slot: { promise?: Promise<State> } = {};
      const loading = this.#load(workspace, () => this.#states.get(workspace) === slot.promise);
      slot.promise = loading;
      // A failed read (store unreachable) is not kept: the next request reads again.
      loading.catch(() => { if (this.#states.get(workspace) === loading) this.#states.delete(workspace); });
      this.#states.set(workspace, loading);
      s = loading;
    }
    return (await s).segment;
  }

  /** Applies the events after the last one applied to every loaded workspace. */
  sync(): Promise<void> {
    return this.#serial(() => this.#catchUp(this.#ready));
  }

  /** Forgets every workspace (the database went back, or the store closed). */
  dropAll(): void {
    this.#states = new Map();
    this.#ready = new Map();
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #load(workspace: string, current: () => boolean): Promise<State> {
    const started = performance.now();
    const base = await this.o.readBase(workspace, false);
    const state: State = { segment: { base, delta: EMPTY_DELTA }, applied: base.floor, rebuilding: false };
    return this.#serial(async () => {
      await this.#catchUp(new Map([[workspace, state]]));
      this.#loads++;
      if (current()) this.#ready.set(workspace, state);
      this.#tell('load', workspace, `query index: loaded workspace ${workspace}, ${base.table.nids.length} nodes, in ${Math.round(performance.now() - started)} ms`);
      return state;
    });
  }

  /** Reads the events after the oldest `applied` of `states` and applies each to its workspace. */
  async #catchUp(states: Map<string, State>): Promise<void> {
    if (states.size === 0) return;
    let from = Math.min(...[...states.values()].map((s) => s.applied));
    for (;;) {
      const page = await this.source.changesSince(from, CHANGES_PAGE_MAX);
      if (page.length === 0) return;
      const byWorkspace = new Map<string, ChangeEvent[]>();
      for (const e of page) {
        const s = states.get(e.workspace);
        if (s === undefined || e.sequence <= s.applied) continue;
        let list = byWorkspace.get(e.workspace);
        if (!list) byWorkspace.set(e.workspace, (list = []));
        list.push(e);
      }
      for (const [workspace, events] of byWorkspace) await this.#apply(workspace, states.get(workspace)!, events);
      from = page[page.length - 1]!.sequence;
      for (const s of states.values()) s.applied = Math.max(s.applied, from);
      if (page.length < CHANGES_PAGE_MAX) return;
    }
  }

  async #apply(workspace: string, state: State, events: readonly ChangeEvent[]): Promise<void> {
    if (events.some((e) => e.truncated)) {
      this.#drop(workspace, state);
      return;
    }
    const started = performance.now();
    const current = await this.source.nodesOfIds(workspace, namedIds(events));
    const { base } = state.segment;
    const { delta, staleNids } = applyEvents(base, state.segment.delta, events, current);
    state.segment = { base, delta };
    this.#applied += events.length;
    this.o.stale(base, staleNids);
    const named = events.reduce((n, e) => n + namedNodes(e).length, 0);
    this.#tell('apply', workspace, `query index: applied ${events.length} change(s) of workspace ${workspace} in place (${named} nodes named; delta ${deltaNodes(delta)} nodes) in ${Math.round(performance.now() - started)} ms`);
    if (deltaNodes(delta) > rebuildThreshold(base.table.nids.length) || delta.extraBytes > this.o.maxDeltaBytes) this.#rebuild(workspace, state);
  }

  /** A truncated event does not say what changed: the workspace loads again on its next query. */
  #drop(workspace: string, state: State): void {
    if (this.#ready.get(workspace) === state) this.#ready.delete(workspace);
    this.#states.delete(workspace);
    this.#drops++;
    this.o.retire(state.segment.base);
    this.#tell('drop', workspace, `query index: dropped workspace ${workspace} (a change too large to list, e.g. a large import); it loads again on its next query`);
  }

  /** Loads a new base in the background; base + delta serve until it has caught up and takes over. */
  #rebuild(workspace: string, state: State): void {
    if (state.rebuilding) return;
    state.rebuilding = true;
    this.#rebuilds++;
    this.#tell('rebuild', workspace, `query index: rebuilding workspace ${workspace} in the background (delta of ${deltaNodes(state.segment.delta)} nodes)`);
    const started = performance.now();
    void (async () => {
      const base = await this.o.readBase(workspace, true);
      await this.#serial(async () => {
        const fresh: State = { segment: { base, delta: EMPTY_DELTA }, applied: base.floor, rebuilding: false };
        if (this.#ready.get(workspace) === state) await this.#catchUp(new Map([[workspace, fresh]]));
        if (this.#ready.get(workspace) !== state) {
          this.o.retire(base); // dropped meanwhile (a truncated event): the next query loads anew
          return;
        }
        const old = state.segment.base;
        state.segment = fresh.segment;
        state.applied = fresh.applied;
        state.rebuilding = false;
        this.#loads++;
        this.o.retire(old);
        this.#tell('load', workspace, `query index: loaded workspace ${workspace}, ${base.table.nids.length} nodes, in ${Math.round(performance.now() - started)} ms (rebuild)`);
      });
    })().catch(() => { state.rebuilding = false; }); // the next application tries again
  }

  #tell(kind: QueryIndexEvent['kind'], workspace: string, message: string): void {
    try {
      this.o.onEvent?.({ kind, workspace, message });
    } catch {
      // the log's failure is not the index's
    }
  }
}
