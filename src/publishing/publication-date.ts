// Publishing layer: the instant a caller asks a publication for (the Commands API's `publicationDate`,
// `petal publish --at`): a strict ISO 8601 date-time with its offset, on the calendar, and no further
// ahead than petal.yaml `publishing.scheduleHorizonDays`. A past instant means now.
import { parseIsoInstant } from '../model/iso-instant.js';

/**
 * A year and a day: a yearly publication can be set up a year ahead, and a typo in the year
 * (2062 for 2026, 9999) is refused instead of sitting in the schedules for decades.
 */
export const DEFAULT_SCHEDULE_HORIZON_DAYS = 366;
const DAY_MS = 86_400_000;

export type PublicationDate =
  | { readonly ok: true; readonly at: Date }
  /** Why not, to follow the field's name: `publicationDate: …`, `--at …`. */
  | { readonly ok: false; readonly problem: string };

export function publicationDate(text: string, now: Date, horizonDays: number = DEFAULT_SCHEDULE_HORIZON_DAYS): PublicationDate {
  const at = parseIsoInstant(text);
  if (at === undefined) {
    return { ok: false, problem: `must be an ISO 8601 date-time on the calendar with its offset or Z, such as 2030-01-01T11:10:00.000+01:00` };
  }
  if (at.getTime() > now.getTime() + horizonDays * DAY_MS) {
    return { ok: false, problem: `must be at most ${horizonDays} days ahead (publishing.scheduleHorizonDays), not ${at.toISOString()}` };
  }
  return { ok: true, at };
}
