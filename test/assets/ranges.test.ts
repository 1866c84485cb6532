import { describe, expect, it } from 'vitest';
import { contentRange, decideRange, ifRangeAllows, isNotModified, noneMatchHits, parseRange } from '../../src/assets/ranges.js';

describe('parseRange (RFC 9110 §14)', () => {
  const size = 1000;
  it('first bytes: bytes=0-99', () => {
    expect(parseRange('bytes=0-99', size)).toEqual({ kind: 'partial', start: 0, end: 99 });
  });
  it('a middle range and a last byte past the end (clamped)', () => {
    expect(parseRange('bytes=500-599', size)).toEqual({ kind: 'partial', start: 500, end: 599 });
    expect(parseRange('bytes=900-5000', size)).toEqual({ kind: 'partial', start: 900, end: 999 });
  });
  it('open end: bytes=990-', () => {
    expect(parseRange('bytes=990-', size)).toEqual({ kind: 'partial', start: 990, end: 999 });
  });
  it('suffix: bytes=-10, and a suffix longer than the representation', () => {
    expect(parseRange('bytes=-10', size)).toEqual({ kind: 'partial', start: 990, end: 999 });
    expect(parseRange('bytes=-5000', size)).toEqual({ kind: 'partial', start: 0, end: 999 });
  });
  it('unsatisfiable: first byte at or past the end, zero suffix, empty representation', () => {
    expect(parseRange('bytes=1000-', size)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=1000-1001', size)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', size)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-1', 0)).toEqual({ kind: 'unsatisfiable' });
  });
  it('multiple ranges are ignored (whole representation)', () => {
    expect(parseRange('bytes=0-1,5-6', size)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-1, 2-3', size)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-1,', size)).toEqual({ kind: 'full' });
  });
  it('malformed or other units are ignored', () => {
    for (const h of ['bytes=', 'bytes=abc', 'bytes=5-2', 'items=0-1', 'bytes 0-1', 'bytes=--1', 'bytes=1.5-2', 'bytes=-', '0-1', 'bytes=0x1-2']) {
      expect(parseRange(h, size), h).toEqual({ kind: 'full' });
    }
    expect(parseRange(undefined, size)).toEqual({ kind: 'full' });
  });
  it('the unit is case-insensitive; optional whitespace is tolerated', () => {
    expect(parseRange('Bytes=0-0', size)).toEqual({ kind: 'partial', start: 0, end: 0 });
    expect(parseRange(' bytes=0-1 ', size)).toEqual({ kind: 'partial', start: 0, end: 1 });
  });
  it('huge numbers do not break anything', () => {
    expect(parseRange('bytes=0-99999999999999999999999', size)).toEqual({ kind: 'partial', start: 0, end: 999 });
    expect(parseRange('bytes=99999999999999999999999-', size)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange(`bytes=0-${'9'.repeat(400)}`, size)).toEqual({ kind: 'full' }); // over 200 characters
  });
  it('Content-Range of 206 and 416', () => {
    expect(contentRange({ kind: 'partial', start: 0, end: 99 }, size)).toBe('bytes 0-99/1000');
    expect(contentRange({ kind: 'unsatisfiable' }, size)).toBe('bytes */1000');
    expect(contentRange({ kind: 'full' }, size)).toBeUndefined();
  });
});

describe('validators', () => {
  const etag = '"abc"';
  const lm = new Date('2015-06-02T15:04:05.037Z');
  it('If-None-Match: exact, list, weak, *', () => {
    expect(noneMatchHits('"abc"', etag)).toBe(true);
    expect(noneMatchHits('"x", "abc"', etag)).toBe(true);
    expect(noneMatchHits('W/"abc"', etag)).toBe(true);
    expect(noneMatchHits('*', etag)).toBe(true);
    expect(noneMatchHits('"abcd"', etag)).toBe(false);
    expect(noneMatchHits('abc', etag)).toBe(false);
    expect(noneMatchHits(undefined, etag)).toBe(false);
  });
  it('If-Modified-Since only counts without If-None-Match', () => {
    expect(isNotModified({ ifModifiedSince: lm.toUTCString() }, etag, lm)).toBe(true);
    expect(isNotModified({ ifModifiedSince: new Date(lm.getTime() - 5000).toUTCString() }, etag, lm)).toBe(false);
    expect(isNotModified({ ifModifiedSince: 'garbage' }, etag, lm)).toBe(false);
    expect(isNotModified({ ifNoneMatch: '"other"', ifModifiedSince: lm.toUTCString() }, etag, lm)).toBe(false);
  });
  it('If-Range: strong tag or exact date', () => {
    expect(ifRangeAllows(undefined, etag, lm)).toBe(true);
    expect(ifRangeAllows('"abc"', etag, lm)).toBe(true);
    expect(ifRangeAllows('W/"abc"', etag, lm)).toBe(false);
    expect(ifRangeAllows('"old"', etag, lm)).toBe(false);
    expect(ifRangeAllows(lm.toUTCString(), etag, lm)).toBe(true);
    expect(ifRangeAllows(new Date(0).toUTCString(), etag, lm)).toBe(false);
  });
  it('decideRange: GET only, and If-Range can veto', () => {
    expect(decideRange('GET', { range: 'bytes=0-1' }, 10, etag, lm)).toEqual({ kind: 'partial', start: 0, end: 1 });
    expect(decideRange('HEAD', { range: 'bytes=0-1' }, 10, etag, lm)).toEqual({ kind: 'full' });
    expect(decideRange('GET', { range: 'bytes=0-1', ifRange: '"old"' }, 10, etag, lm)).toEqual({ kind: 'full' });
  });
});
