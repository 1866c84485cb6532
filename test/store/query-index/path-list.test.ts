// The query index keeps a workspace's paths as UTF-8 bytes (path-list.ts) and searches them by byte,
// which must be the stores' code point order: it differs from JavaScript's UTF-16 order for astral
// characters (an emoji sorts after U+FF5E by code point, before it by UTF-16 unit).
import { describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../../src/store/query-index/compare.js';
import { PathList, PathListBuilder } from '../../../src/store/query-index/path-list.js';

const PATHS = ['/a', '/a/b', '/a/é', '/a/\uff5e', '/a/😀', '/a/😀/x', '/b'].sort(compareCodePoints);

describe('PathList', () => {
  it('gives back every path, and finds each by binary search over its bytes', () => {
    const list = PathList.from(PATHS);
    expect(list.length).toBe(PATHS.length);
    expect([...list.strings()]).toEqual(PATHS);
    PATHS.forEach((p, i) => {
      expect(list.at(i)).toBe(p);
      expect(list.indexOf(p)).toBe(i);
      expect(list.lowerBound(p)).toBe(i);
    });
    expect(list.indexOf('/a/c')).toBe(-1);
  });

  it('bounds ranges in code point order, astral characters after the rest of the BMP', () => {
    const list = PathList.from(PATHS);
    expect(list.lowerBound('/a/\uff5e')).toBeLessThan(list.lowerBound('/a/😀'));
    // The descendants of /a/😀 are [lowerBound('/a/😀/'), lowerBound('/a/😀0')).
    expect(list.lowerBound('/a/😀0') - list.lowerBound('/a/😀/')).toBe(1);
    expect(list.lowerBound('/c')).toBe(list.length);
    expect(list.lowerBound('')).toBe(0);
  });

  it('grows its buffers past what it expected', () => {
    const b = new PathListBuilder(1);
    const many = Array.from({ length: 500 }, (_, i) => `/n/${String(i).padStart(4, '0')}-ü`);
    for (const p of many) b.push(p);
    const list = b.finish();
    expect([...list.strings()]).toEqual(many);
    expect(list.bytes.length).toBe(Buffer.byteLength(many.join(''), 'utf8'));
  });
});
