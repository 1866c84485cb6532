// normalizeDateTime reads the form exports write without a regular expression: its answers must be
// those of the general path (which validates with Date.parse) for every string of that shape.
import { describe, expect, it } from 'vitest';
import { normalizeDateTime } from '../../src/model/property-type.js';
import { isCalendarDay } from '../../src/model/iso-instant.js';

/** The general rule, as the function applies it to any text (copied here as the oracle). */
function general(text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '00', frac = '', zone] = m;
  if (!isCalendarDay(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const ms = (frac + '000').slice(0, 3);
  let offset = zone ?? 'Z';
  if (offset === 'Z') offset = '+00:00';
  else if (!offset.includes(':')) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const out = `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}${offset}`;
  return Number.isNaN(Date.parse(out)) ? undefined : out;
}

describe('normalizeDateTime on the export form', () => {
  it('answers as the general rule for 20,000 random strings of that shape, valid or not', () => {
    let seed = 7;
    const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const two = (max: number) => String(rand(max)).padStart(2, '0');
    for (let i = 0; i < 20_000; i++) {
      const zone = ['Z', `+${two(30)}:${two(70)}`, `-${two(25)}:${two(61)}`, `+0${rand(10)}:x0`, 'z'][rand(5)]!;
      const text = `${String(rand(10_000)).padStart(4, '0')}-${two(14)}-${two(33)}T${two(26)}:${two(62)}:${two(62)}.${String(rand(1000)).padStart(3, '0')}${zone}`;
      expect(normalizeDateTime(text), text).toBe(general(text));
    }
  });

  it('keeps a written offset and writes Z as +00:00', () => {
    expect(normalizeDateTime('2020-02-01T13:45:49.952+07:00')).toBe('2020-02-01T13:45:49.952+07:00');
    expect(normalizeDateTime('2024-01-02T03:04:05.000Z')).toBe('2024-01-02T03:04:05.000+00:00');
    expect(normalizeDateTime('2030-02-30T00:00:00.000Z')).toBeUndefined();
  });
});
