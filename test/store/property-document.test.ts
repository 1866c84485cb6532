// propertyIn picks one property out of a stored property document exactly as parsing the whole
// document and finding it by name does, whatever the names and values hold.
import { describe, expect, it } from 'vitest';
import { propertyIn, propertyNeedle } from '../../src/store/property-document.js';
import type { ScalarValue, StoredProperty } from '../../src/model/property-type.js';

const TRICKY = ['title', 'tags', '', ',', '[', ']', '"', '\\', '],["title",', '["title",', 'a"b', 'x\\"', '\u0000', 'é', '😀', 'cms:created', 'title_de'];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
}

function scalar(r: () => number): ScalarValue {
  const x = r();
  if (x < 0.2) return Math.round(r() * 1e6) / 100;
  if (x < 0.3) return r() < 0.5;
  return TRICKY[Math.floor(r() * TRICKY.length)]! + (r() < 0.5 ? TRICKY[Math.floor(r() * TRICKY.length)]! : '');
}

function documentOf(r: () => number): StoredProperty[] {
  const names = new Set<string>();
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) names.add(TRICKY[Math.floor(r() * TRICKY.length)]! + (r() < 0.3 ? 'x' : ''));
  return [...names].map((name): StoredProperty => {
    if (r() < 0.3) return [name, 'String', Array.from({ length: Math.floor(r() * 4) }, () => String(scalar(r)))];
    const v = scalar(r);
    return [name, typeof v === 'number' ? 'Double' : typeof v === 'boolean' ? 'Boolean' : 'String', v];
  });
}

describe('propertyIn', () => {
  it('finds what JSON.parse and a search by name find, for 5,000 random documents and every tricky name', () => {
    const r = rng(7);
    let found = 0;
    for (let k = 0; k < 5_000; k++) {
      const props = documentOf(r);
      const doc = JSON.stringify(props);
      for (const name of [...TRICKY, 'titlex', 'missing']) {
        const expected = (JSON.parse(doc) as StoredProperty[]).find((p) => p[0] === name);
        expect(propertyIn(doc, propertyNeedle(name)), `${name} in ${doc}`).toEqual(expected);
        if (expected) found++;
      }
    }
    expect(found).toBeGreaterThan(5_000);
  });

  it('does not take a multi-value element or a text for a property name', () => {
    const doc = JSON.stringify([['tags', 'String', ['title', 'x']], ['body', 'String', '],["title","String","fake"]'], ['title', 'String', 'real']]);
    expect(propertyIn(doc, propertyNeedle('title'))).toEqual(['title', 'String', 'real']);
    const none = JSON.stringify([['tags', 'String', ['title', 'x']], ['body', 'String', '],["title","String","fake"]']]);
    expect(propertyIn(none, propertyNeedle('title'))).toBeUndefined();
    expect(propertyIn('[]', propertyNeedle('title'))).toBeUndefined();
  });
});
