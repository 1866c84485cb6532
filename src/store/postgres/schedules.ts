// PostgreSQL backend: scheduled publishes and unpublishes (publishing.ts), shared by every instance:
// a run claims its schedule by deleting the row inside its own transaction, so exactly one runs it.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { storedRunAs, type NewSchedule, type Schedule, type ScheduleAction } from '../schedules.js';
import { scheduleInstant, scheduleLimit } from '../schedule-values.js';
import { exec, run, type Statement } from './statements.js';

/** Migration 8 (see migrations.ts). */
export const SCHEDULES_SQL = `
-- Publishes and unpublishes to run when due; a refused run keeps the row with its error.
CREATE TABLE schedules (
  id        text        PRIMARY KEY COLLATE "C",
  action    text        NOT NULL,
  workspace text        NOT NULL COLLATE "C",
  path      text        NOT NULL COLLATE "C",
  recursive boolean     NOT NULL,
  comment   text,
  by        text        NOT NULL,
  due       timestamptz NOT NULL,
  created   timestamptz NOT NULL DEFAULT now(),
  error     text
);
CREATE INDEX schedules_by_due ON schedules (due);
-- The publisher's comment kept with a version (absent when none was given).
ALTER TABLE versions ADD COLUMN comment text;
`;

/** Migration 10 (see migrations.ts). */
export const SCHEDULE_RUN_AS_SQL = `
-- Whose rights a schedule runs with (publishing.ts ScheduleRunAs), checked when it runs. A schedule
-- stored before kept no trace of whether the Commands API or the CLI made it: each runs as the user
-- its \`by\` names, so a user's is checked, and an operator's whose \`by\` is no user fails, visibly.
ALTER TABLE schedules ADD COLUMN run_as text;
UPDATE schedules SET run_as = 'user:' || by;
ALTER TABLE schedules ALTER COLUMN run_as SET NOT NULL;
`;

const s = (name: string, text: string): Statement => ({ name: `petal_s_${name}`, text });
const COLUMNS = 'id, action, workspace, path, recursive, comment, by, run_as, due, created, error';

const SQL = {
  insert: s('insert', `
    INSERT INTO schedules (id, action, workspace, path, recursive, comment, by, run_as, due) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
    RETURNING ${COLUMNS}`),
  list: s('list', `SELECT ${COLUMNS} FROM schedules ORDER BY due, created, id`),
  /** $2 NULL: no bound. */
  due: s('due', `SELECT ${COLUMNS} FROM schedules WHERE due <= $1 AND error IS NULL ORDER BY due, created, id LIMIT $2`),
  remove: s('remove', `DELETE FROM schedules WHERE id = $1 RETURNING ${COLUMNS}`),
  fail: s('fail', 'UPDATE schedules SET error = $1 WHERE id = $2'),
} as const;

interface ScheduleRow {
  id: string; action: string; workspace: string; path: string; recursive: boolean; comment: string | null;
  by: string; run_as: string; due: Date; created: Date; error: string | null;
}

function toSchedule(r: ScheduleRow): Schedule {
  return {
    id: r.id, action: r.action as ScheduleAction, workspace: r.workspace, path: r.path, recursive: r.recursive,
    ...(r.comment !== null ? { comment: r.comment } : {}), by: r.by, runAs: storedRunAs(r.run_as), due: r.due.toISOString(), created: r.created.toISOString(),
    ...(r.error !== null ? { error: r.error } : {}),
  };
}

type Queryable = pg.Pool | pg.PoolClient;

/** Text is stored as given but for U+0000, which PostgreSQL text cannot hold (see nul-text.ts). */
export async function addSchedule(db: Queryable, x: NewSchedule, text: (value: string) => string): Promise<Schedule> {
  const [row] = await run<ScheduleRow>(db, SQL.insert, [randomUUID(), x.action, text(x.workspace), text(x.path), x.recursive,
    x.comment === undefined ? null : text(x.comment), text(x.by), text(x.runAs), scheduleInstant(x.due)]);
  return toSchedule(row!);
}

export async function listSchedules(db: Queryable): Promise<Schedule[]> {
  return (await run<ScheduleRow>(db, SQL.list)).map(toSchedule);
}

export async function dueSchedules(db: Queryable, now: string, limit: number): Promise<Schedule[]> {
  return (await run<ScheduleRow>(db, SQL.due, [scheduleInstant(now), scheduleLimit(limit) ?? null])).map(toSchedule);
}

/** Deletes the schedule; the one deleted. Inside a state change's transaction, this is its claim. */
export async function removeSchedule(db: Queryable, id: string): Promise<Schedule | undefined> {
  const [row] = await run<ScheduleRow>(db, SQL.remove, [id]);
  return row && toSchedule(row);
}

export async function failSchedule(db: Queryable, id: string, error: string): Promise<void> {
  await exec(db, SQL.fail, [error, id]);
}
