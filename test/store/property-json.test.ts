// A property's triple is found in a node's properties JSON (as JSON.stringify wrote it) without parsing
// the rest: only where a triple starts, never inside a value or a multi-value list (cases written for
// the PostgreSQL column reads; both backends use property-document.ts).
import { describe, expect, it } from 'vitest';
import type { StoredProperty } from '../../src/model/property-type.js';
import { propertyIn, propertyNeedle } from '../../src/store/property-document.js';

const find = (properties: readonly StoredProperty[], name: string) => propertyIn(JSON.stringify(properties), propertyNeedle(name));
const tripleStart = (name: string) => propertyNeedle(name).head;

describe('propertyIn: cases of PostgreSQL documents', () => {
  const tricky: StoredProperty[] = [
    // Multi-value lists whose first value is the name of another property: the text a triple starts with.
    ['tags', 'String', ['title', 'x']],
    ['more', 'String', ['price', 'z']],
    // Texts holding a triple's text (escaped in the JSON), quotes, backslashes and brackets.
    ['body', 'String', '["title","String","fake"],["price",1]'],
    ['quote"d', 'String', 'a"b\\c]d[e'],
    ['q', 'String', 'say "]" now'],
    ['back\\u0000slash', 'String', 'y'],
    ['odd\u0000name', 'String', 'nul \u0000 inside'],
    ['emoji 😀 ü', 'String', ['😀', '']],
    ['empty', 'String', []],
    ['title', 'String', 'Real title'],
    ['price', 'Decimal', '12.50'],
    ['when', 'Date', ['2024-03-01T10:00:00.000+05:30', '2024-03-01T00:00:00.000-08:00']],
    ['flag', 'Boolean', false],
    ['n', 'Long', 0],
  ];

  it('returns each property exactly as stored, whatever its name or values', () => {
    for (const p of tricky) expect(find(tricky, p[0])).toEqual(p);
  });

  it('does not take a multi-value list or a text for a property of that name', () => {
    // Neither `title` nor `price` is a property here, but both texts occur where a triple could start.
    const without = tricky.filter((p) => p[0] !== 'title' && p[0] !== 'price');
    expect(JSON.stringify(without)).toContain(tripleStart('title'));
    expect(JSON.stringify(without)).toContain(tripleStart('price'));
    expect(find(without, 'title')).toBeUndefined();
    expect(find(without, 'price')).toBeUndefined();
  });

  it('finds the first and the last property, and nothing in an empty list', () => {
    expect(find([['a', 'Long', 1]], 'a')).toEqual(['a', 'Long', 1]);
    expect(find([['a', 'Long', 1], ['b', 'String', ['a', 'b']]], 'b')).toEqual(['b', 'String', ['a', 'b']]);
    expect(find([], 'a')).toBeUndefined();
    expect(find([['ab', 'Long', 1]], 'a')).toBeUndefined();
  });
});
