// Query vocabulary (no I/O): `like` patterns (`%` any run, `_` one code point, `\` makes the next
// code point literal; a trailing `\` is itself literal). Matched by two pointers with one backtrack
// point, O(value × pattern) in the worst case and never exponential (patterns of text and `%` only
// use indexOf per piece): a pattern comes from the request, and the backtracking regex the index
// used let `%_%_%_%#` pin the CPU for minutes. Every store
// path (query index, SQLite's `like_match`) uses this one matcher, so they answer alike.
// Case-insensitive matching folds both sides before calling (see index-values and build-query).

/**
 * A compiled pattern: code points, with ANY (`%`) and ONE (`_`) as negative codes; and, for the
 * common patterns of literal text and `%` only, the literal pieces between the `%`s.
 */
export interface LikePattern {
  readonly tokens: Int32Array;
  readonly pieces?: readonly string[];
}

const ANY = -1;
const ONE = -2;

export function compileLike(pattern: string): LikePattern {
  const out: number[] = [];
  const cps = Array.from(pattern, (c) => c.codePointAt(0)!);
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === 0x5c && i + 1 < cps.length) out.push(cps[++i]!);
    else if (c === 0x25) {
      if (out[out.length - 1] !== ANY) out.push(ANY); // `%%` is `%`: fewer backtrack restarts
    } else if (c === 0x5f) out.push(ONE);
    else out.push(c);
  }
  const tokens = Int32Array.from(out);
  // Without `_` and surrogates, a code point match is a UTF-16 match: indexOf finds the pieces.
  if (out.some((c) => c === ONE || (c >= 0xd800 && c <= 0xdfff) || c > 0xffff)) return { tokens };
  const pieces: string[] = [''];
  for (const c of out) {
    if (c === ANY) pieces.push('');
    else pieces[pieces.length - 1] += String.fromCharCode(c);
  }
  return { tokens, pieces };
}

/**
 * `piece0 % piece1 % … % pieceN`: the first and last pieces are anchored, and each middle piece is
 * taken where it first occurs (leftmost is never worse, since `%` absorbs whatever lies between).
 */
function piecesMatch(pieces: readonly string[], text: string): boolean {
  const first = pieces[0]!;
  if (pieces.length === 1) return text === first;
  const last = pieces[pieces.length - 1]!;
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let pos = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    const at = text.indexOf(piece, pos);
    if (at < 0 || at + piece.length > end) return false;
    pos = at + piece.length;
  }
  return true;
}

/** UTF-16 units of a code point (an unpaired surrogate counts as one code point of one unit). */
function width(cp: number): number {
  return cp > 0xffff ? 2 : 1;
}

/** True when the whole of `text` matches `p`. */
export function likeMatch(pattern: LikePattern, text: string): boolean {
  if (pattern.pieces !== undefined) return piecesMatch(pattern.pieces, text);
  const p = pattern.tokens;
  const m = p.length;
  const n = text.length;
  let pi = 0;
  let ti = 0;
  let star = -1; // index in p just after the last `%` seen
  let mark = 0; // where in text that `%` currently ends
  while (ti < n) {
    const cp = text.codePointAt(ti)!;
    const tok = pi < m ? p[pi]! : 0;
    if (pi < m && (tok === ONE || tok === cp)) {
      pi++;
      ti += width(cp);
    } else if (pi < m && tok === ANY) {
      star = ++pi;
      mark = ti;
    } else if (star >= 0) {
      // The last `%` takes one more code point; earlier `%`s never need to move (classic result).
      pi = star;
      mark += width(text.codePointAt(mark)!);
      ti = mark;
    } else {
      return false;
    }
  }
  while (pi < m && p[pi] === ANY) pi++;
  return pi === m;
}

/** True when `text` matches any of the patterns. */
export function likeMatchAny(patterns: readonly LikePattern[], text: string): boolean {
  for (const p of patterns) if (likeMatch(p, text)) return true;
  return false;
}
