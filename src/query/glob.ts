// Query vocabulary (no I/O): `*` patterns of permission rules, where `*` matches any run of
// characters (slashes included). Two pointers with one backtrack point: linear in practice, no RegExp
// built from configuration, so a pathological pattern cannot blow up.

export function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** A permission rule reduced to what a store needs: the first matching pattern in order decides. */
export interface ReadRule {
  readonly pattern: string;
  readonly read: boolean;
}

/** The decision of ordered rules (longest first, most permissive first on ties); no match = no read. */
export function readableBy(rules: readonly ReadRule[], path: string): boolean {
  for (const r of rules) if (globMatch(r.pattern, path)) return r.read;
  return false;
}
