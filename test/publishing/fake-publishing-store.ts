// Test helper: the publishing calls of a ContentStore in memory, claiming a schedule as the real stores
// do (a request naming a schedule that is gone writes nothing and says `claimed: false`).
import { randomUUID } from 'node:crypto';
import type { NodeRecord } from '../../src/store/rows.js';
import { publishedWorkspace, type NewSchedule, type Schedule, type StateRequest, type StateResult } from '../../src/store/publishing.js';
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
  return { action: 'publish', workspace: 'website', path: '/travel', recursive: false, by: 'alice', due: '2026-01-01T00:00:00.000Z', ...overrides };
}
