import { describe, expect, it } from 'vitest';
import { detached } from '../../src/ingest/detached-text.js';

describe('detached', () => {
  it('gives the same text, short or long, sliced from a large string or not', () => {
    const chunk = `${'x'.repeat(300_000)}2015-05-13T22:34:25.055Z é😀\uD800 end`;
    for (const text of ['', 'a', 'twelve chars', 'thirteen char', chunk.slice(300_000), chunk.slice(300_000, 300_024), chunk, 'ümlaut and 😀 emoji']) {
      expect(detached(text)).toBe(text);
      expect(detached(text).length).toBe(text.length);
    }
  });
});
