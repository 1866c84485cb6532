// Store layer: a stored schedule of a publication (ScheduleLog), as both backends persist it.

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
