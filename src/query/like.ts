// Query vocabulary (no I/O): `like` patterns (`%` any run, `_` one code point, `\` makes the next
// code point literal; a trailing `\` is itself literal). Matched by two pointers with one backtrack
// point, O(value × pattern) in the worst case and never exponential: a pattern comes from the
// request, and a backtracking regex or GLOB let `%_%_%_%#` pin the CPU for minutes. Every store
// path (query index, SQLite's `like_match`) uses this one matcher, so they answer alike.
// Case-insensitive matching folds both sides before calling (see index-values and build-query).

/** A compiled pattern: code points, with ANY (`%`) and ONE (`_`) as negative codes. */
export type LikePattern = Int32Array;

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
  return Int32Array.from(out);
}

/** UTF-16 units of a code point (an unpaired surrogate counts as one code point of one unit). */
function width(cp: number): number {
  return cp > 0xffff ? 2 : 1;
}

/** True when the whole of `text` matches `p`. */
export function likeMatch(p: LikePattern, text: string): boolean {
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
