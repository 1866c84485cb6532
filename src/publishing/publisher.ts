// Publishing layer: one publish or unpublish as an editor asks for it (`petal publish`, the Commands
// API): carried out now, or stored as a schedule when its instant is still ahead (scheduler.ts runs it
// when due). Free of HTTP: a refusal is a NodeWriteError, which each caller turns into its own answer.
import type { ContentStore } from '../store/content-store.js';
import { NodeWriteError, type NodeWriteGuard } from '../repository/node-write.js';
import { publishedWorkspace } from '../model/workspaces.js';
import type { NewSchedule, Schedule, ScheduleAction } from '../store/schedules.js';
import type { NodeRecord } from '../store/rows.js';
import { publishState, publishVersion, unpublishState } from '../repository/writes.js';
import type { VersionInfo } from '../store/versions.js';
import { type StateRequest, type StateResult } from '../repository/publishing.js';

/** What a publication needs: node reads, the state changes (repository/writes.ts), the schedule log. */
export interface PublishingStore {
  getNode(workspace: string, path: string): Promise<NodeRecord | undefined>;
  publishState(request: StateRequest): Promise<StateResult>;
  unpublishState(request: StateRequest): Promise<StateResult>;
  addSchedule(schedule: NewSchedule): Promise<Schedule>;
  dueSchedules(now: string, limit: number): Promise<Schedule[]>;
  failSchedule(id: string, error: string): Promise<void>;
  /** Publishing off: records the next version of the node (undefined when there is none). */
  publishVersion(workspace: string, path: string, by: string): Promise<VersionInfo | undefined>;
}

/** A store's publications: the repository's rules in the store's transactions. */
export function publishingStore(store: ContentStore): PublishingStore {
  return {
    getNode: (workspace, path) => store.reads.getNode(workspace, path),
    publishState: (request) => publishState(store, request),
    unpublishState: (request) => unpublishState(store, request),
    addSchedule: (schedule) => store.schedules.add(schedule),
    dueSchedules: (now, limit) => store.schedules.due(now, limit),
    failSchedule: (id, error) => store.schedules.fail(id, error),
    publishVersion: (workspace, path, by) => publishVersion(store, workspace, path, by),
  };
}

/**
 * What a schedule made of it would keep (`workspace` the logical one, `website`, never
 * `website@published`; `runAs` whose rights it is checked against when it runs: the caller's).
 */
export interface PublishRequest extends Omit<NewSchedule, 'due'> {
  /** When it should happen; absent, now or past: at once. */
  readonly at?: Date;
  /** The caller's permissions; absent for the operator's CLI. */
  readonly guard?: NodeWriteGuard;
  /** Node types a non-recursive publish takes along (repository/publish-rules.ts takenAlongBy). */
  readonly takenAlong: (type: string) => boolean;
}

export type PublishOutcome =
  | { readonly kind: 'done'; readonly action: ScheduleAction; readonly result: StateResult }
  | { readonly kind: 'scheduled'; readonly schedule: Schedule };

/**
 * Publishes or unpublishes now, or stores a schedule for a future `at`. The caller's rights and the
 * node's existence are checked when it is stored (`missing`, also for a node the caller may not read,
 * `denied`, `invalid`), and again, as they are then, when it runs (scheduler.ts, `runAs`).
 */
export async function requestPublication(store: PublishingStore, request: PublishRequest, now: Date = new Date()): Promise<PublishOutcome> {
  if (request.at !== undefined && Number.isNaN(request.at.getTime())) {
    throw new NodeWriteError('invalid', 'The publication date is not a valid instant');
  }
  // A guard without a user to check again when the schedule runs would run it with no check at all.
  if (request.guard !== undefined && request.runAs === 'operator') throw new Error('requestPublication: a caller\'s guard needs its runAs');
  if (request.at === undefined || request.at.getTime() <= now.getTime()) {
    const state: StateRequest = {
      workspace: request.workspace, path: request.path, recursive: request.recursive, takenAlong: request.takenAlong,
      by: request.by, ...(request.comment !== undefined ? { comment: request.comment } : {}),
      ...(request.guard !== undefined ? { guard: request.guard } : {}),
    };
    const result = request.action === 'publish' ? await store.publishState(state) : await store.unpublishState(state);
    return { kind: 'done', action: request.action, result };
  }
  await checkSchedulable(store, request);
  const schedule = await store.addSchedule({
    action: request.action, workspace: request.workspace, path: request.path, recursive: request.recursive,
    ...(request.comment !== undefined ? { comment: request.comment } : {}), by: request.by, runAs: request.runAs,
    due: request.at.toISOString(),
  });
  return { kind: 'scheduled', schedule };
}

/**
 * The StateRequest that carries out a stored schedule, claiming it in the same transaction, under
 * `guard`: its author's rights as they are when it runs (none for the operator's).
 */
export function scheduledRequest(schedule: Schedule, takenAlong: (type: string) => boolean, guard?: NodeWriteGuard): StateRequest {
  return {
    workspace: schedule.workspace, path: schedule.path, recursive: schedule.recursive, takenAlong, by: schedule.by,
    ...(schedule.comment !== undefined ? { comment: schedule.comment } : {}), schedule: schedule.id,
    ...(guard !== undefined ? { guard } : {}),
  };
}

async function checkSchedulable(store: PublishingStore, request: PublishRequest): Promise<void> {
  const { workspace, path, guard } = request;
  const where = `${workspace}:${path}`;
  if (guard !== undefined && !guard.canRead(workspace, path)) throw new NodeWriteError('missing', `No node at ${where}`);
  // An unpublish also applies to a node that is only left in the published state (deleted since).
  const exists = await store.getNode(workspace, path) !== undefined
    || (request.action === 'unpublish' && await store.getNode(publishedWorkspace(workspace), path) !== undefined);
  if (!exists) throw new NodeWriteError('missing', `No node at ${where}`);
  if (guard === undefined) return;
  // An unpublish removes the whole published subtree, as a recursive publish replaces it.
  const whole = request.recursive || request.action === 'unpublish';
  const allowed = whole ? guard.mayReplaceSubtree(workspace, path) : guard.mayWrite(workspace, path);
  if (!allowed) throw new NodeWriteError('denied', `No permission to ${request.action} ${where}`);
}
