// Store layer: the two states of a workspace when publishing is on (petal.yaml `publishing`). The
// working content lives in the workspace itself; the published content in an internal workspace of
// its own, `<workspace>@published`, with the same tables, indexes and readers, so everything that
// reads a workspace reads the published state unchanged. Outside names can never contain `@`
// (model/names.ts refuses them), so an internal name cannot be reached or forged from outside.
import type { NodeWriteGuard } from './node-write.js';
import type { VersionInfo } from './versions.js';

const PUBLISHED_SUFFIX = '@published';

/** The internal workspace holding the published state of `workspace` (idempotent). */
export function publishedWorkspace(workspace: string): string {
  return workspace.endsWith(PUBLISHED_SUFFIX) ? workspace : workspace + PUBLISHED_SUFFIX;
}

/** The workspace a stored one belongs to: `website` for `website@published`, itself otherwise. */
export function logicalWorkspace(stored: string): string {
  return stored.endsWith(PUBLISHED_SUFFIX) ? stored.slice(0, -PUBLISHED_SUFFIX.length) : stored;
}

export function isPublishedWorkspace(stored: string): boolean {
  return stored.endsWith(PUBLISHED_SUFFIX);
}

/** The activation properties every working node carries once publishing has touched it. */
export const ACTIVATION_STATUS = 'cms:activationStatus';
export const LAST_ACTIVATED = 'cms:lastActivated';
export const LAST_ACTIVATED_BY = 'cms:lastActivatedBy';
/** On the published copy's root: the version the publish recorded. */
export const LAST_ACTIVATED_VERSION = 'cms:lastActivatedVersion';

/**
 * Values of `cms:activationStatus` (a String, so a query filter can ask for each): published and
 * unchanged since, changed since its last publication, never published or unpublished (no property
 * at all means never published too). The original stores a Boolean and derives "modified" from
 * `lastModified > lastActivated`; its clients treat anything but "false" as activated and compare the
 * dates themselves, which these values keep true.
 */
export const STATUS = { published: 'true', modified: 'modified', unpublished: 'false' } as const;

export const ACTIVATION_PROPERTIES: ReadonlySet<string> = new Set([
  ACTIVATION_STATUS, LAST_ACTIVATED, LAST_ACTIVATED_BY, LAST_ACTIVATED_VERSION,
]);

/** One publish or unpublish, of a workspace's working content (logical names). */
export interface StateRequest {
  readonly workspace: string;
  readonly path: string;
  /**
   * Publish: with the whole subtree. Without it, the node and the descendants reached only through
   * nodes `takenAlong` accepts (a page's areas and components, not its subpages). Unpublish always
   * removes the whole published subtree.
   */
  readonly recursive: boolean;
  /** A node type a non-recursive publish takes along with its parent (repository/publish-rules.ts). */
  readonly takenAlong: (type: string) => boolean;
  /** Who publishes: `cms:lastActivatedBy`, the version's and the change events' `by`. */
  readonly by: string;
  /** Kept with the version a publish records. */
  readonly comment?: string;
  /** The instant (ISO 8601 with milliseconds and offset, as storedNow); now when absent. */
  readonly now?: string;
  /** The caller's permissions (readWrite on every node written), asked inside the transaction. */
  readonly guard?: NodeWriteGuard;
  /**
   * The schedule this request carries out: claimed (deleted) inside the same transaction. When it is
   * already gone (another instance ran it, or it was cancelled), nothing is written and the result
   * says `claimed: false`.
   */
  readonly schedule?: string;
}

export interface StateResult {
  /** False only for a schedule that was no longer there (see StateRequest.schedule). */
  readonly claimed: boolean;
  /** Nodes copied into (publish) or removed from (unpublish) the published state. */
  readonly nodes: number;
  /** The version a publish recorded. */
  readonly version?: VersionInfo;
}

export type ScheduleAction = 'publish' | 'unpublish';

/**
 * Whose rights a schedule runs with, checked when it runs (publishing/scheduler.ts): `user:NAME`, a
 * user of the security configuration (the Commands API's caller); `anonymous`, the anonymous caller's
 * roles; `operator`, none (`petal publish --at`: whoever can run the CLI on the store owns it).
 */
export type ScheduleRunAs = 'operator' | 'anonymous' | `user:${string}`;

/** The runAs of a caller: a user by name, or the anonymous caller. */
export function runAsCaller(user: string | undefined): ScheduleRunAs {
  return user === undefined ? 'anonymous' : `user:${user}`;
}

/** The user a schedule runs as (undefined for the anonymous caller); undefined too for `operator`, which has no user. */
export function runAsUser(runAs: ScheduleRunAs): string | undefined {
  return runAs.startsWith('user:') ? runAs.slice('user:'.length) : undefined;
}

/** A runAs as stored (text); anything else is read as a user's, so that it is checked, never run unchecked. */
export function storedRunAs(text: string): ScheduleRunAs {
  return text === 'operator' || text === 'anonymous' || text.startsWith('user:') ? text as ScheduleRunAs : `user:${text}`;
}

export interface NewSchedule {
  readonly action: ScheduleAction;
  readonly workspace: string;
  readonly path: string;
  readonly recursive: boolean;
  readonly comment?: string;
  readonly by: string;
  readonly runAs: ScheduleRunAs;
  /** When it runs: ISO 8601 instant (UTC, `Z`). */
  readonly due: string;
}

export interface Schedule extends NewSchedule {
  /** Random UUID. */
  readonly id: string;
  /** ISO 8601 instant (UTC) it was stored. */
  readonly created: string;
  /** Why its run was refused (a parent not published, the node gone…); a failed schedule does not run again. */
  readonly error?: string;
}
