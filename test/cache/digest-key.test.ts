// Cache keys: a short text is its own key (no digest per look-up), a long one its SHA-256 digest, and
// the two kinds can never be equal.
import { describe, expect, it } from 'vitest';
import { digestKey, LONGEST_TEXT_KEY, lookupKey, storedKey } from '../../src/cache/digest-key.js';

describe('lookupKey and storedKey', () => {
  it('keep a short text as itself, and store an equal copy', () => {
    const text = `anonymous\na\nen\n/.rest/delivery/pages/v1/${'a'.repeat(20)}\n`;
    expect(lookupKey(text)).toBe(text);
    expect(storedKey(text)).toBe(text);
    const atBound = 'x'.repeat(LONGEST_TEXT_KEY);
    expect(lookupKey(atBound)).toBe(atBound);
  });

  it('digest a longer text', () => {
    const long = 'x'.repeat(LONGEST_TEXT_KEY + 1);
    expect(lookupKey(long)).toBe(digestKey(long));
    expect(storedKey(long)).toBe(digestKey(long));
  });

  it('digest a short text shaped like a digest, so that no text is ever taken for one', () => {
    const long = 'y'.repeat(1_000);
    const lookalike = digestKey(long); // 44 characters ending in `=`
    expect(lookalike).toHaveLength(44);
    expect(lookupKey(lookalike)).not.toBe(lookalike);
    expect(lookupKey(lookalike)).toBe(digestKey(lookalike));
    expect(lookupKey(lookalike)).not.toBe(lookupKey(long));
    // 44 characters not ending in `=` cannot be a digest: kept as text.
    const other = `${'z'.repeat(43)}!`;
    expect(lookupKey(other)).toBe(other);
  });

  it('store every code unit of a text, lone surrogates too', () => {
    const text = `anonymous\na\nen\n/p\n[["q","\ud800x€"]]`;
    expect(storedKey(text)).toBe(text);
  });
});
