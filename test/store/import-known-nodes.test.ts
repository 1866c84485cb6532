import { describe, expect, it } from 'vitest';
import { KnownNodes } from '../../src/store/import-known-nodes.js';
import { Fingerprints } from '../../src/store/fingerprints.js';

describe('Fingerprints', () => {
  it('says yes for every string added and no for the others (no false negative, collisions rare)', () => {
    const set = new Fingerprints();
    for (let i = 0; i < 100_000; i++) set.add(`/products/f${i % 100}/p${i}`);
    expect(set.size).toBe(100_000);
    for (let i = 0; i < 100_000; i++) expect(set.mayHave(`/products/f${i % 100}/p${i}`)).toBe(true);
    let collisions = 0;
    for (let i = 0; i < 100_000; i++) if (set.mayHave(`/other/q${i}`)) collisions++;
    // 32-bit hashes: about 100,000 × 100,000 / 2^32 ≈ 2 expected.
    expect(collisions).toBeLessThan(20);
  });
});

describe('KnownNodes (what an import transaction remembers)', () => {
  it('knows every path and uuid it inserted into an empty workspace without asking, however many', () => {
    const k = new KnownNodes(true, 10);
    for (let i = 0; i < 1_000; i++) k.inserted(`id-${i}`, `/a/n${i}`, '/a', i);
    // Inserted: maybe ours, asked behind the transaction's own writes.
    expect(k.position('/a/n5')).toBe('own');
    expect(k.pathOf('id-999')).toBe('own');
    // Never inserted, in a workspace that was empty: known to be free.
    expect(k.position('/a/x')).toEqual({ known: null });
    expect(k.pathOf('id-x')).toEqual({ known: null });
  });

  it('forgets database answers past its bound, and asks again instead of guessing', () => {
    const k = new KnownNodes(false, 10);
    for (let i = 0; i < 10; i++) k.learnId(`db-${i}`, `/stored/${i}`);
    expect(k.pathOf('db-0')).toEqual({ known: '/stored/0' });
    k.learnId('db-10', '/stored/10');
    expect(k.pathOf('db-0')).toBe('db');
    expect(k.pathOf('db-10')).toEqual({ known: '/stored/10' });
    // reserveIds makes room for a prefetch, so that none of its answers is forgotten before use.
    k.reserveIds(5);
    for (let i = 0; i < 5; i++) k.learnId(`p-${i}`, null);
    for (let i = 0; i < 5; i++) expect(k.pathOf(`p-${i}`)).toEqual({ known: null });
  });

  it('answers the highest child position while it remembers it, and says to ask once it may have forgotten', () => {
    const k = new KnownNodes(true, 3);
    k.inserted('a', '/p1/a', '/p1', 0);
    k.inserted('b', '/p1/b', '/p1', 1);
    expect(k.maxInsertedChild('/p1')).toBe(1);
    expect(k.maxInsertedChild('/none')).toBeUndefined();
    for (let i = 0; i < 5; i++) k.inserted(`c${i}`, `/q${i}/c`, `/q${i}`, 0);
    expect(k.maxInsertedChild('/p1')).toBe('own');
  });

  it('below a removed subtree, only what it inserted since is there', () => {
    const k = new KnownNodes(false, 10);
    k.learnPosition('/r', 0);
    k.learnPosition('/r/x', 0);
    k.removed('/r');
    expect(k.onlyInserted).toBe(false);
    expect(k.position('/r/x')).toEqual({ known: null });
    expect(k.position('/r/y')).toEqual({ known: null });
    k.inserted('n', '/r/y', '/r', 0);
    expect(k.position('/r/y')).toBe('own');
    // Elsewhere the database is asked (not the last commit: this transaction removed nodes).
    expect(k.position('/elsewhere')).toBe('db');
  });
});
