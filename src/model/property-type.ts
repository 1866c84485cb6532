// Repository model: property types and the stored shape of a property (shared by store, ingest, delivery).
import { isCalendarDay } from './iso-instant.js';

export const PROPERTY_TYPES = [
  'String', 'Long', 'Double', 'Decimal', 'Boolean', 'Date', 'Binary',
  'Reference', 'WeakReference', 'Name', 'Path', 'URI',
] as const;

export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** A single value as stored: numbers for Long/Double, booleans for Boolean, strings for everything else
 * (Date as ISO 8601 with milliseconds and offset, Decimal as its decimal text, Binary as a blob hash). */
export type ScalarValue = string | number | boolean;

/**
 * One property of a node: `[name, type, value]`. The value is an array exactly when the property is
 * multi-value (an empty array is a multi-value property without values). Names are canonical (`cms:`).
 * A tuple keeps the per-node JSON document small and cheap to parse on the hot path.
 */
export type StoredProperty = readonly [name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[]];

const TYPE_SET: ReadonlySet<string> = new Set(PROPERTY_TYPES);

export function isPropertyType(value: string): value is PropertyType {
  return TYPE_SET.has(value);
}

/** Case-insensitive lookup of a JCR property type name as written in exports (`sv:type="Long"`, `!weakreference`). */
export function parsePropertyType(name: string): PropertyType | undefined {
  const lower = name.toLowerCase();
  for (const t of PROPERTY_TYPES) if (t.toLowerCase() === lower) return t;
  return undefined;
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Normalises a date-time text to ISO 8601 with milliseconds and an explicit offset
 * (`2020-02-01T13:45:49.952+07:00`); the offset written in the source is kept. Returns undefined if the
 * text is not a date-time. A time without offset is taken as UTC.
 */
export function normalizeDateTime(text: string): string | undefined {
  const fast = canonicalDateTime(text);
  if (fast !== undefined) return fast;
  const m = ISO_DATE_TIME.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '00', frac = '', zone] = m;
  // Date.parse would take 2030-02-30 as March 2: a day off the calendar, or a clock past 23:59:59, is none.
  if (!isCalendarDay(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const ms = (frac + '000').slice(0, 3);
  let offset = zone ?? 'Z';
  if (offset === 'Z') offset = '+00:00';
  else if (!offset.includes(':')) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const out = `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}${offset}`;
  return Number.isNaN(Date.parse(out)) ? undefined : out;
}

/**
 * The form exports write (`2024-01-02T03:04:05.000Z` or `…000+07:00`), read without a regular
 * expression or Date.parse (imports read millions): the same answer as the general path, or undefined
 * to take it.
 */
function canonicalDateTime(t: string): string | undefined {
  const n = t.length;
  if ((n !== 24 && n !== 29) || t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45 || t.charCodeAt(10) !== 84
    || t.charCodeAt(13) !== 58 || t.charCodeAt(16) !== 58 || t.charCodeAt(19) !== 46) return undefined;
  const year = digits(t, 0, 4);
  const month = digits(t, 5, 2);
  const day = digits(t, 8, 2);
  const hour = digits(t, 11, 2);
  const minute = digits(t, 14, 2);
  const second = digits(t, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || digits(t, 20, 3) < 0) return undefined;
  if (!isCalendarDay(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  if (n === 24) return t.charCodeAt(23) === 90 /* Z */ ? `${t.slice(0, 23)}+00:00` : undefined;
  const sign = t.charCodeAt(23);
  if ((sign !== 43 && sign !== 45) || t.charCodeAt(26) !== 58) return undefined;
  const offsetHours = digits(t, 24, 2);
  const offsetMinutes = digits(t, 27, 2);
  if (offsetHours < 0 || offsetMinutes < 0 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  return t;
}

/** The number `count` ASCII digits at `at` spell, or -1. */
function digits(t: string, at: number, count: number): number {
  let v = 0;
  for (let i = at; i < at + count; i++) {
    const c = t.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Only the date part (`yyyy-MM-dd`), which JCR exports use for Date values at midnight. */
export function normalizeDate(text: string): string | undefined {
  // What exports write, without the trim and the test below (a text this takes has no space around it).
  const fast = canonicalDateTime(text);
  if (fast !== undefined) return fast;
  const t = text.trim();
  if (DATE_ONLY.test(t)) return normalizeDateTime(`${t}T00:00:00.000Z`);
  return normalizeDateTime(t);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Converts one textual value (as found in XML exports) to the stored scalar of its type. */
export function coerceValue(type: PropertyType, text: string): ScalarValue {
  switch (type) {
    case 'Long': {
      const n = Number(text.trim());
      if (!Number.isInteger(n)) throw new Error(`not a Long value: ${JSON.stringify(text)}`);
      return n;
    }
    case 'Double': {
      const t = text.trim();
      const n = t === 'NaN' ? NaN : Number(t);
      if (Number.isNaN(n) && t !== 'NaN') throw new Error(`not a Double value: ${JSON.stringify(text)}`);
      return n;
    }
    case 'Boolean': {
      const t = text.trim().toLowerCase();
      if (t !== 'true' && t !== 'false') throw new Error(`not a Boolean value: ${JSON.stringify(text)}`);
      return t === 'true';
    }
    case 'Date': {
      const d = normalizeDate(text);
      if (d === undefined) throw new Error(`not a Date value: ${JSON.stringify(text)}`);
      return d;
    }
    default:
      return text;
  }
}
