// Config layer: the default of petal.yaml `publishing.scheduleHorizonDays`, how far ahead a publication
// may be scheduled (publishing/publication-date.ts applies it).

/**
 * A year and a day: a yearly publication can be set up a year ahead, and a typo in the year
 * (2062 for 2026, 9999) is refused instead of sitting in the schedules for decades.
 */
export const DEFAULT_SCHEDULE_HORIZON_DAYS = 366;
