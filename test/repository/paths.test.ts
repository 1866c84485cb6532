// Node paths: the canonical form every layer compares (one leading slash, no empty, `.` or `..`
// segments, no trailing slash), and what never names a node.
import { describe, expect, it } from 'vitest';
import { normalizePath } from '../../src/model/paths.js';

describe('normalizePath', () => {
  it.each([
    ['/a', '/a'],
    ['/a/b.c', '/a/b.c'],
    ['/a/.b', '/a/.b'],
    ['/a/..b', '/a/..b'],
    ['/', '/'],
    ['', '/'],
    ['a/b', '/a/b'],
    ['/a/', '/a'],
    ['//a///b//', '/a/b'],
    ['/./a/.', '/a'],
    ['/tours/über café', '/tours/über café'],
  ])('%j → %j', (raw, canonical) => {
    expect(normalizePath(raw)).toBe(canonical);
  });

  it.each(['/..', '/a/..', '/a/../b', '..', '/a\u0000', '/a\u001f/b', '/a/\u007f'])('%j names no node', (raw) => {
    expect(normalizePath(raw)).toBeUndefined();
  });

  it('answers a canonical path as the same string', () => {
    const raw = '/travel/about/main/0';
    expect(normalizePath(raw)).toBe(raw);
  });
});
