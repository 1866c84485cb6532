// Publishing layer: the instant a caller asks a publication for (the Commands API's `publicationDate`,
// `petal publish --at`): a strict ISO 8601 date-time with its offset, on the calendar, and no further
// ahead than petal.yaml `publishing.scheduleHorizonDays`. A past instant means now.
import { DEFAULT_SCHEDULE_HORIZON_DAYS } from '../config/schedule-horizon.js';
import { parseIsoInstant } from '../model/iso-instant.js';

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
