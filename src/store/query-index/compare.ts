// Store layer (query index): string comparison by code point, which is the order SQLite's BINARY
// collation (UTF-8 bytes) and PostgreSQL's "C" collation give; JavaScript's `<` compares UTF-16 units.

export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral code points) sort above every other BMP unit in code point order.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** A `like` pattern (`%`, `_`, `\` escapes) as an anchored regular expression over code points. */
export function likeToRegExp(pattern: string): RegExp {
  let src = '^';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) src += escapeRegExp(chars[++i]!);
    else if (c === '%') src += '[\\s\\S]*';
    else if (c === '_') src += '[\\s\\S]';
    else src += escapeRegExp(c);
  }
  return new RegExp(`${src}$`, 'u');
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}
