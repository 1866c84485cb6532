// Store layer: the values of schedules both backends store the same way (publishing.ts).

/**
 * An instant as stored: `toISOString()` (UTC, milliseconds, `Z`), so that SQLite's text order is
 * time order whatever form the caller gave (`…T10:00Z`, `…T12:00:00+02:00`). Throws a RangeError
 * for text that is no instant.
 */
export function scheduleInstant(text: string): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new RangeError(`Not an instant: ${JSON.stringify(text)}`);
  return new Date(ms).toISOString();
}

/** `limit` of dueSchedules as a row count (0 or more; undefined: no bound). */
export function scheduleLimit(limit: number): number | undefined {
  if (Number.isNaN(limit)) return 0;
  return Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : undefined;
}
