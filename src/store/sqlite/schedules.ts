// SQLite backend: scheduled publishes and unpublishes (publishing.ts). Instants are stored as
// `toISOString()` text (UTC, milliseconds, `Z`), so text order is time order.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { storedRunAs, type NewSchedule, type Schedule, type ScheduleAction } from '../schedules.js';
import { scheduleInstant, scheduleLimit } from '../schedule-values.js';

/** Migration 8 (see migrations.ts). */
export const SCHEDULES_SQL = `
-- Publishes and unpublishes to run when due; a run deletes its row in its own transaction (claimed
-- once, whichever instance runs it); a refused run keeps the row with its error.
CREATE TABLE schedules (
  id        TEXT    PRIMARY KEY,
  action    TEXT    NOT NULL,
  workspace TEXT    NOT NULL,
  path      TEXT    NOT NULL,
  recursive INTEGER NOT NULL,
  comment   TEXT,
  by        TEXT    NOT NULL,
  due       TEXT    NOT NULL,
  created   TEXT    NOT NULL,
  error     TEXT
) WITHOUT ROWID;
CREATE INDEX schedules_by_due ON schedules (due);
-- The publisher's comment kept with a version (absent when none was given).
ALTER TABLE versions ADD COLUMN comment TEXT;
`;

/** Migration 10 (see migrations.ts). */
export const SCHEDULE_RUN_AS_SQL = `
-- Whose rights a schedule runs with (publishing.ts ScheduleRunAs), checked when it runs. A schedule
-- stored before kept no trace of whether the Commands API or the CLI made it: each runs as the user
-- its \`by\` names, so a user's is checked, and an operator's whose \`by\` is no user fails, visibly.
-- The default (a user without a name) fails too: every insert gives the column.
ALTER TABLE schedules ADD COLUMN run_as TEXT NOT NULL DEFAULT 'user:';
UPDATE schedules SET run_as = 'user:' || by;
`;

interface ScheduleRow {
  id: string; action: string; workspace: string; path: string; recursive: number; comment: string | null;
  by: string; run_as: string; due: string; created: string; error: string | null;
}

const COLUMNS = 'id, action, workspace, path, recursive, comment, by, run_as, due, created, error';

function toSchedule(r: ScheduleRow): Schedule {
  return {
    id: r.id, action: r.action as ScheduleAction, workspace: r.workspace, path: r.path, recursive: r.recursive !== 0,
    ...(r.comment !== null ? { comment: r.comment } : {}), by: r.by, runAs: storedRunAs(r.run_as), due: r.due, created: r.created,
    ...(r.error !== null ? { error: r.error } : {}),
  };
}

function statements(db: Database.Database) {
  return {
    insert: db.prepare(`INSERT INTO schedules (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) RETURNING ${COLUMNS}`),
    list: db.prepare(`SELECT ${COLUMNS} FROM schedules ORDER BY due, created, id`),
    due: db.prepare(`SELECT ${COLUMNS} FROM schedules WHERE due <= ? AND error IS NULL ORDER BY due, created, id LIMIT ?`),
    remove: db.prepare(`DELETE FROM schedules WHERE id = ? RETURNING ${COLUMNS}`),
    fail: db.prepare('UPDATE schedules SET error = ? WHERE id = ?'),
  };
}

/** Schedule statements over the store's two connections: reads on the reader, writes on the writer. */
export class SqliteSchedules {
  readonly #read: ReturnType<typeof statements>;
  readonly #write: ReturnType<typeof statements>;

  constructor(reader: Database.Database, writer: Database.Database) {
    this.#read = statements(reader);
    this.#write = statements(writer);
  }

  /** The writes run inside the store's write queue (the writer connection has one transaction at a time). */
  add(s: NewSchedule): Schedule {
    const row = this.#write.insert.get(randomUUID(), s.action, s.workspace, s.path, s.recursive ? 1 : 0, s.comment ?? null,
      s.by, s.runAs, scheduleInstant(s.due), new Date().toISOString()) as ScheduleRow;
    return toSchedule(row);
  }

  /** Deletes the schedule; the one deleted. Inside a state change's transaction, this is its claim. */
  remove(id: string): Schedule | undefined {
    const row = this.#write.remove.get(id) as ScheduleRow | undefined;
    return row && toSchedule(row);
  }

  fail(id: string, error: string): void {
    this.#write.fail.run(error, id);
  }

  list(): Schedule[] {
    return (this.#read.list.all() as ScheduleRow[]).map(toSchedule);
  }

  due(now: string, limit: number): Schedule[] {
    return (this.#read.due.all(scheduleInstant(now), scheduleLimit(limit) ?? -1) as ScheduleRow[]).map(toSchedule);
  }
}
