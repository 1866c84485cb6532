// PostgreSQL full text: the body of a node's words (fts.body) skips counting bytes when no limit can be
// reached; it must give exactly what counting every word's bytes gives (the reference below).
import { describe, expect, it } from 'vitest';
import { ftsBody } from '../../src/store/postgres/full-text.js';
import { words } from '../../src/store/full-text-words.js';

/** The rule as stated: distinct words in order, none over 2,046 bytes, the body under 1 MB (8 bytes counted per word). */
function reference(text: string): string {
  const seen = new Set<string>();
  let bytes = 0;
  for (const w of words(text)) {
    if (seen.has(w)) continue;
    const size = Buffer.byteLength(w);
    if (size > 2046) continue;
    if (bytes + size + 8 > 1_000_000) break;
    bytes += size + 8;
    seen.add(w);
  }
  return [...seen].join(' ');
}

/** A deterministic pseudo-random generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const ALPHABETS = ['abcXYZ019', 'äöüÄÖÜßéÉ', '日本語の文字', 'İΣςσ', '😀𝒜\u0301', ' .,;-\n\t'];

function text(random: () => number, length: number, wordLength: number): string {
  let out = '';
  while (out.length < length) {
    const alphabet = ALPHABETS[Math.floor(random() * (ALPHABETS.length - 1))]!;
    const chars = [...alphabet];
    const n = 1 + Math.floor(random() * wordLength);
    for (let i = 0; i < n; i++) out += chars[Math.floor(random() * chars.length)];
    out += ' .,;-\n'[Math.floor(random() * 6)];
  }
  return out;
}

describe('ftsBody', () => {
  it('equals the byte-counting rule on short texts of every script', () => {
    const random = rng(7);
    for (let i = 0; i < 2_000; i++) {
      const t = text(random, Math.floor(random() * 300), 12);
      expect(ftsBody(t)).toBe(reference(t));
    }
  });

  it('leaves out words over 2,046 bytes, also those of fewer units (3 bytes each), and keeps one of exactly 2,046', () => {
    const long = ['a'.repeat(2_046), 'a'.repeat(2_047), 'é'.repeat(1_023), 'é'.repeat(1_024), '日'.repeat(682), '日'.repeat(683), '𝒜'.repeat(511), '𝒜'.repeat(512)];
    const t = `start ${long.join(' ')} end`;
    expect(ftsBody(t)).toBe(reference(t));
    expect(ftsBody(t).split(' ').map((w) => Buffer.byteLength(w))).toEqual([5, 2_046, 2_046, 2_046, 2_044, 3]);
  });

  it('stops at the 1 MB body limit, at and around the length where counting starts', () => {
    const random = rng(11);
    for (const length of [142_850, 142_856, 142_860, 200_000, 600_000]) {
      const t = text(random, length, 40);
      expect(ftsBody(t)).toBe(reference(t));
    }
    // Distinct words only: the limit is reached.
    const distinct = Array.from({ length: 150_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const kept = ftsBody(distinct).split(' ');
    const counted = kept.reduce((sum, w) => sum + Buffer.byteLength(w) + 8, 0);
    expect(counted).toBeLessThanOrEqual(1_000_000);
    expect(counted).toBeGreaterThan(1_000_000 - 16);
    expect(ftsBody(distinct)).toBe(reference(distinct));
  });
});
