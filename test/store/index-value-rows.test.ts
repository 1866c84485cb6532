// forEachIndexValue (what a query column keeps) gives each value exactly as indexRows derives it (what
// the SQL path and the query index's delta compare), for every type and the values an index leaves out.
import { describe, expect, it } from 'vitest';
import { forEachIndexValue, indexRows } from '../../src/store/index-values.js';
import type { StoredProperty } from '../../src/model/property-type.js';

const PROPERTIES: StoredProperty[] = [
  ['s', 'String', 'Hello Wörld'], ['multi', 'String', ['a', 'B', '']], ['empty', 'String', []],
  ['l', 'Long', 42], ['d', 'Double', -0.5], ['text number', 'Double', '12.50'], ['nan', 'Double', 'NaN'], ['inf', 'Double', 'Infinity'],
  ['dec', 'Decimal', '1e3'], ['when', 'Date', '2024-03-01T10:00:00.000+05:30'], ['bad date', 'Date', 'soon'],
  ['dates', 'Date', ['2024-01-01T00:00:00.000Z', 'never', '2024-01-02T00:00:00.000+01:00']],
  ['b', 'Boolean', true], ['b2', 'Boolean', 'true'], ['b3', 'Boolean', false], ['flags', 'Boolean', [true, false]],
  ['ref', 'Reference', 'f0e1d2c3'], ['weak', 'WeakReference', 'x'], ['name', 'Name', 'mgnl:page'], ['path', 'Path', '/a/b'],
  ['uri', 'URI', 'https://x'], ['bin', 'Binary', 'abc123'],
];

describe('forEachIndexValue', () => {
  it('gives what indexRows gives, property by property', () => {
    for (const p of PROPERTIES) {
      const got: unknown[] = [];
      forEachIndexValue(p, (pos, kind, s, n) => got.push({ pos, kind, s, n }));
      expect(got, p[0]).toEqual(indexRows([p]).map((r) => ({ pos: r.pos, kind: r.kind, s: r.s, n: r.n })));
    }
    // The cases above reach every branch: values left out, kept, and multi-value positions.
    expect(indexRows(PROPERTIES).length).toBeGreaterThan(20);
    expect(indexRows([['nan', 'Double', 'NaN']])).toEqual([]);
  });
});
