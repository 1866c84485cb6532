// Security layer: URI (web access) permissions of a caller's roles, with Magnolia's precedence
// (AccessManagerImpl): among all matching patterns of all roles the longest pattern wins (its length
// counts `*`), on equal length the most permissive wins, no match = deny. Patterns are `*` globs
// matched without RegExp, in time linear in the input per pattern piece (no backtracking).

export type UriPermission = 'deny' | 'get' | 'getAndPost';

export interface UriRule {
  readonly path: string;
  readonly permission: UriPermission;
}

export interface UriAccess {
  /** Whether `method` on the canonical `path` is allowed. */
  decide(path: string, method: string): 'allow' | 'deny';
  /** The winning permission on `path` (`deny` when nothing matches). */
  permissionAt(path: string): UriPermission;
}

/** A compiled `*` glob. `exact`: no `*`; `prefix`: `literal*` (only trailing stars); else `glob`. */
export interface Glob {
  readonly pattern: string;
  readonly kind: 'exact' | 'prefix' | 'glob';
  /** The whole pattern for `exact`, the part before the first `*` otherwise. */
  readonly literal: string;
  matches(input: string): boolean;
}

/** `*` matches any run of characters (including `/` and the empty run); every other char is literal. */
export function compileGlob(pattern: string): Glob {
  const pieces = pattern.split('*');
  if (pieces.length === 1) {
    return { pattern, kind: 'exact', literal: pattern, matches: (input) => input === pattern };
  }
  const prefix = pieces[0]!;
  const suffix = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  const minLength = prefix.length + suffix.length + middle.reduce((n, p) => n + p.length, 0);
  const kind = suffix === '' && middle.length === 0 ? 'prefix' : 'glob';
  const matches = (input: string): boolean => {
    if (input.length < minLength || !input.startsWith(prefix) || !input.endsWith(suffix)) return false;
    // Star-only globs need no backtracking: the leftmost occurrence of each middle piece is optimal.
    let pos = prefix.length;
    const end = input.length - suffix.length;
    for (const piece of middle) {
      const at = input.indexOf(piece, pos);
      if (at === -1 || at + piece.length > end) return false;
      pos = at + piece.length;
    }
    return true;
  };
  return { pattern, kind, literal: prefix, matches };
}

const URI_RANK: Readonly<Record<UriPermission, number>> = { deny: 0, get: 1, getAndPost: 2 };

/** GET and HEAD read; every other method, known or not, writes (DESIGN.md §6). */
export function requiredUriPermission(method: string): UriPermission {
  return method === 'GET' || method === 'HEAD' ? 'get' : 'getAndPost';
}

interface CompiledUriRule {
  readonly glob: Glob;
  readonly permission: UriPermission;
  readonly rank: number;
}

/** Compiles the merged URI rules of a role set; do it once per role set and cache the result. */
export function compileUriRules(rules: readonly UriRule[]): UriAccess {
  const compiled: CompiledUriRule[] = rules.map((r) => {
    if (!Object.hasOwn(URI_RANK, r.permission)) {
      throw new TypeError(`Unknown URI permission '${String(r.permission)}' on '${r.path}'`);
    }
    return { glob: compileGlob(r.path), permission: r.permission, rank: URI_RANK[r.permission] };
  });
  // Longest pattern first, then most permissive: the first match is the winner.
  compiled.sort((a, b) => b.glob.pattern.length - a.glob.pattern.length || b.rank - a.rank);

  const permissionAt = (path: string): UriPermission => {
    for (const rule of compiled) if (rule.glob.matches(path)) return rule.permission;
    return 'deny';
  };
  return {
    permissionAt,
    decide(path, method) {
      const needed = URI_RANK[requiredUriPermission(method)];
      return URI_RANK[permissionAt(path)] >= needed ? 'allow' : 'deny';
    },
  };
}
