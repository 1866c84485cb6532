// Test helper: the publishing calls of a ContentStore in memory, claiming a schedule as the real stores
// do (a request naming a schedule that is gone writes nothing and says `claimed: false`).
import { randomUUID } from 'node:crypto';
import type { ContentStore } from '../../src/store/content-store.js';
import type { NodeRecord } from '../../src/store/rows.js';
import type { VersionInfo } from '../../src/store/versions.js';
import { publishedWorkspace } from '../../src/model/workspaces.js';
import { type NewSchedule, type Schedule } from '../../src/store/schedules.js';
import { type StateRequest, type StateResult } from '../../src/repository/publishing.js';
import type { PublishingStore } from '../../src/publishing/publisher.js';
import type { SchedulingStore } from '../../src/publishing/scheduler.js';

export type StateCall = { readonly action: 'publish' | 'unpublish'; readonly request: StateRequest };

export class FakePublishingStore implements PublishingStore, SchedulingStore {
  readonly schedules = new Map<string, Schedule>();
  readonly calls: StateCall[] = [];
  /** Paths (`workspace:path`) with a node. */
  readonly nodes = new Set<string>();
  /** Replaces the write of publishState/unpublishState (a refusal, an outage, a write held open). */
  onState: ((call: StateCall) => Promise<StateResult>) | undefined;

  async getNode(workspace: string, path: string): Promise<NodeRecord | undefined> {
    return this.nodes.has(`${workspace}:${path}`) ? ({ workspace, path } as NodeRecord) : undefined;
  }

  publishState(request: StateRequest): Promise<StateResult> {
    return this.#state({ action: 'publish', request });
  }

  unpublishState(request: StateRequest): Promise<StateResult> {
    return this.#state({ action: 'unpublish', request });
  }

  async addSchedule(s: NewSchedule): Promise<Schedule> {
    const schedule: Schedule = { ...s, id: randomUUID(), created: new Date().toISOString() };
    this.schedules.set(schedule.id, schedule);
    return schedule;
  }

  async dueSchedules(now: string, limit: number): Promise<Schedule[]> {
    return [...this.schedules.values()].filter((s) => s.error === undefined && s.due <= now)
      .sort((a, b) => a.due.localeCompare(b.due)).slice(0, limit);
  }

  async listSchedules(): Promise<Schedule[]> {
    return [...this.schedules.values()].sort((a, b) => a.due.localeCompare(b.due));
  }

  async cancelSchedule(id: string): Promise<Schedule | undefined> {
    const s = this.schedules.get(id);
    this.schedules.delete(id);
    return s;
  }

  /** Publishing off: a version only (petal publish's first meaning). */
  async publishVersion(workspace: string, path: string, by: string): Promise<VersionInfo | undefined> {
    if (!this.nodes.has(`${workspace}:${path}`)) return undefined;
    this.versions.push(`${workspace}:${path}`);
    return { workspace, path, name: '1.0', nodeId: randomUUID(), created: '2026-06-01T12:00:00.000Z', createdBy: by, nodes: 2 };
  }

  readonly versions: string[] = [];
  closed = 0;

  async close(): Promise<void> {
    this.closed++;
  }

  /** As the ContentStore a command opens: only the calls the commands make exist; any other throws (a test that needs it is wrong). */
  asContentStore(): ContentStore {
    const only = <T extends object>(what: string, calls: T): T => new Proxy(calls, {
      get: (target, key, receiver) => {
        const value: unknown = Reflect.get(target, key, receiver);
        // `then` is asked by every await of the store (it is not a promise); symbols by inspection.
        if (value === undefined && key !== 'then' && typeof key === 'string') throw new Error(`FakePublishingStore has no ${what}${String(key)}`);
        return value;
      },
    });
    return only('', {
      reads: only('reads.', { getNode: (workspace: string, path: string) => this.getNode(workspace, path) }),
      schedules: only('schedules.', {
        list: () => this.listSchedules(), cancel: (id: string) => this.cancelSchedule(id), add: (s: NewSchedule) => this.addSchedule(s),
        due: (now: string, limit: number) => this.dueSchedules(now, limit), fail: (id: string, error: string) => this.failSchedule(id, error),
      }),
      close: () => this.close(),
    }) as unknown as ContentStore;
  }

  async failSchedule(id: string, error: string): Promise<void> {
    const s = this.schedules.get(id);
    if (s !== undefined) this.schedules.set(id, { ...s, error });
  }

  async #state(call: StateCall): Promise<StateResult> {
    this.calls.push(call);
    const result = this.onState !== undefined ? await this.onState(call) : { claimed: true, nodes: 1 };
    const id = call.request.schedule;
    if (id !== undefined) {
      if (!this.schedules.has(id)) return { claimed: false, nodes: 0 };
      this.schedules.delete(id);
    }
    if (call.action === 'publish') this.nodes.add(`${publishedWorkspace(call.request.workspace)}:${call.request.path}`);
    return result;
  }
}

export function newSchedule(overrides: Partial<NewSchedule> = {}): NewSchedule {
  return { action: 'publish', workspace: 'website', path: '/travel', recursive: false, by: 'alice', runAs: 'operator', due: '2026-01-01T00:00:00.000Z', ...overrides };
}
