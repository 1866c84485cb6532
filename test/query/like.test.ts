// The `like` matcher every store path uses: the answers of the regex it replaced (and of a dynamic
// programming reference) on tricky and random patterns, and linear time on backtracking patterns.
import { describe, expect, it } from 'vitest';
import { compileLike, likeMatch } from '../../src/query/like.js';

/** The former query-index translation: an anchored regex over code points (`\` escapes, trailing `\` literal). */
function regexReference(pattern: string): RegExp {
  let src = '^';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const lit = (x: string) => (/[\\^$.*+?()[\]{}|/]/.test(x) ? `\\${x}` : x);
    if (c === '\\' && i + 1 < chars.length) src += lit(chars[++i]!);
    else if (c === '%') src += '[\\s\\S]*';
    else if (c === '_') src += '[\\s\\S]';
    else src += lit(c);
  }
  return new RegExp(`${src}$`, 'u');
}

/** Table-filling reference over code points. */
function dpReference(pattern: string, text: string): boolean {
  const toks: (string | 'ANY' | 'ONE')[] = [];
  const p = [...pattern];
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\' && i + 1 < p.length) toks.push(`=${p[++i]}`);
    else if (p[i] === '%') toks.push('ANY');
    else if (p[i] === '_') toks.push('ONE');
    else toks.push(`=${p[i]}`);
  }
  const t = [...text];
  let row = new Array<boolean>(t.length + 1).fill(false);
  row[0] = true;
  for (const tok of toks) {
    const next = new Array<boolean>(t.length + 1).fill(false);
    if (tok === 'ANY') next[0] = row[0]!;
    for (let j = 1; j <= t.length; j++) {
      if (tok === 'ANY') next[j] = row[j]! || next[j - 1]!;
      else if (tok === 'ONE') next[j] = row[j - 1]!;
      else next[j] = row[j - 1]! && tok.slice(1) === t[j - 1];
    }
    row = next;
  }
  return row[t.length]!;
}

const match = (p: string, s: string) => likeMatch(compileLike(p), s);

describe('like matcher', () => {
  it('answers as the former regex on escapes, wildcards, astral characters and a trailing backslash', () => {
    const patterns = ['%-%', 'a_c', '%\\%%', '100\\%', '[x]%', '%.*+?^$(){}|/-', '_', '%', '', 'a\\_b', '%ü%', '😀%', '_!', '__', 'x\\',
      '\\\\%', '%%a%%', 'a%', '%a', '%a_', '\\😀', '%\n%', 'a%b%c', '%_%_%_%#'];
    const inputs = ['a-b', 'abc', 'a%b', '100%', '[x]yz', 'q.*+?^$(){}|/-', 'é', '', 'a_b', 'axb', 'grün', '😀!', 'x\\', '\\x', 'multi\nline-x',
      '😀', 'aXbYc', 'abc#', 'a', 'ab😀'];
    for (const p of patterns) {
      const re = regexReference(p);
      for (const s of inputs) {
        expect(match(p, s), `${JSON.stringify(s)} like ${JSON.stringify(p)}`).toBe(re.test(s));
      }
    }
  });

  it('agrees with a table-filling reference on random patterns and values', () => {
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = ['a', 'b', '😀', '%', '_', '\\'];
    const pick = (len: number, from: readonly string[]) => Array.from({ length: len }, () => from[rand(from.length)]).join('');
    for (let i = 0; i < 5_000; i++) {
      const p = pick(rand(8), alphabet);
      const s = pick(rand(10), ['a', 'b', '😀', '%', '_', '\\']);
      expect(match(p, s), `${JSON.stringify(s)} like ${JSON.stringify(p)}`).toBe(dpReference(p, s));
    }
    // Literal text and `%` only: the indexOf path.
    for (let i = 0; i < 5_000; i++) {
      const p = pick(rand(8), ['a', 'b', '%', '%', '\\']);
      const s = pick(rand(10), ['a', 'b', '%', '\\', 'é']);
      expect(compileLike(p).pieces, p).toBeDefined();
      expect(match(p, s), `${JSON.stringify(s)} like ${JSON.stringify(p)}`).toBe(dpReference(p, s));
    }
  });

  it('matches a backtracking pattern against long values in linear time (the regex took minutes)', () => {
    const values = ['_'.repeat(20_000), 'ab'.repeat(10_000), `${'x'.repeat(20_000)}#`];
    const pattern = compileLike('%_%_%_%_%_%_%_%_%#');
    expect(values.map((v) => likeMatch(pattern, v))).toEqual([false, false, true]);
    // The former translation on a fraction of this size already runs for seconds (not run here).
  });
});
