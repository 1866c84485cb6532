// Security layer: workspace (JCR) ACLs of a caller's roles. Patterns: `/path` (that node), `/path/*`
// (its descendants), `/*` (every node, root included), `/` (the root), `*` anywhere as a glob.
// Precedence as Magnolia's: longest matching pattern wins, tie → most permissive, no match → no access.
// Rules under the workspace key `*` apply to every workspace, merged with that workspace's own.
import { ByteLru } from '../cache/byte-lru.js';
import { LONGEST_CACHED_PATH, lookupKey, storedKey, storedKeyBytes } from '../cache/digest-key.js';
import { compileGlob, type Glob } from './uri-permissions.js';

export type AclPermission = 'deny' | 'read' | 'readWrite';

export interface AclRule {
  readonly path: string;
  readonly permission: AclPermission;
}

/** The workspace key whose rules apply to every workspace. */
export const ALL_WORKSPACES = '*';

export interface CompiledAclRule {
  /** The pattern as written. */
  readonly path: string;
  readonly permission: AclPermission;
  /** Precedence length: the pattern's string length, `*` included. */
  readonly length: number;
  /** `exact`: the node `literal`; `prefix`: every path starting with `literal`; `glob`: use matches. */
  readonly kind: Glob['kind'];
  readonly literal: string;
  readonly grantsRead: boolean;
  matches(path: string): boolean;
}

export interface WorkspaceAccess {
  canRead(workspace: string, path: string): boolean;
  /** The winning permission on `path` (`deny` when nothing matches). */
  permissionAt(workspace: string, path: string): AclPermission;
  /** True only when the merged rules are read/readWrite rules among `/`, `/*`, `*` covering every path. */
  readsAll(workspace: string): boolean;
  /** True when no rule grants read anywhere in the workspace. */
  readsNothing(workspace: string): boolean;
  /** Merged rules, longest first then most permissive: the first matching rule decides. */
  rulesFor(workspace: string): readonly CompiledAclRule[];
}

const ACL_RANK: Readonly<Record<AclPermission, number>> = { deny: 0, read: 1, readWrite: 2 };
/** Bytes of memoized decisions of one compiled ACL when the caller shares no cache (16 MiB). */
export const DEFAULT_ACL_CACHE_BYTES = 16 * 1024 * 1024;

/** Memoized decisions, keyed by `<cacheKey>\n<workspace>\n<path>`: one may serve many compiled ACLs. */
export type AclDecisionCache = ByteLru<string, AclPermission>;
const BROAD_PATTERNS: ReadonlySet<string> = new Set(['/', '/*', '*']);

function compileRule(rule: AclRule): CompiledAclRule {
  if (!Object.hasOwn(ACL_RANK, rule.permission)) {
    throw new TypeError(`Unknown workspace permission '${String(rule.permission)}' on '${rule.path}'`);
  }
  const glob = compileGlob(rule.path);
  return Object.freeze({
    path: rule.path,
    permission: rule.permission,
    length: rule.path.length,
    kind: glob.kind,
    literal: glob.literal,
    grantsRead: ACL_RANK[rule.permission] >= ACL_RANK.read,
    matches: glob.matches,
  });
}

/** The winner among `rules` sorted as rulesFor returns them (`deny` when nothing matches). */
export function decideAcl(rules: readonly CompiledAclRule[], path: string): AclPermission {
  for (const rule of rules) if (rule.matches(path)) return rule.permission;
  return 'deny';
}

interface WorkspaceState {
  readonly rules: readonly CompiledAclRule[];
  readonly readsAll: boolean;
  readonly readsNothing: boolean;
  /** Prefix of this state's keys in the decision cache. */
  readonly prefix: string;
}

/** Compiles the merged workspace rules of a role set; do it once per role set and cache the result. */
export function compileAcl(
  rulesByWorkspace: Readonly<Record<string, readonly AclRule[]>>,
  options: { readonly cache?: AclDecisionCache; readonly cacheKey?: string; readonly cacheBytes?: number } = {},
): WorkspaceAccess {
  // Paths are chosen by callers: the memo is bounded in bytes (misses included) and evicts the least
  // recently used. A shared cache serves every role set of a configuration; `cacheKey` keeps them apart.
  const cache = options.cache ?? new ByteLru<string, AclPermission>(options.cacheBytes ?? DEFAULT_ACL_CACHE_BYTES);
  const base = options.cacheKey ?? '';
  const makeState = (rules: CompiledAclRule[], workspace: string): WorkspaceState => {
    rules.sort((a, b) => b.length - a.length || ACL_RANK[b.permission] - ACL_RANK[a.permission]);
    return {
      rules: Object.freeze(rules),
      readsAll:
        rules.length > 0 &&
        rules.every((r) => r.grantsRead && BROAD_PATTERNS.has(r.path)) &&
        rules.some((r) => r.path !== '/'),
      readsNothing: rules.every((r) => !r.grantsRead),
      prefix: `${base}\n${workspace}\n`,
    };
  };
  // Compiled eagerly (later changes to the input have no effect). Workspaces without rules of their
  // own share one state, so unknown workspace names never grow the map.
  const shared = (Object.hasOwn(rulesByWorkspace, ALL_WORKSPACES) ? rulesByWorkspace[ALL_WORKSPACES]! : [])
    .map(compileRule);
  // Workspace names cannot hold a line break, so `*` (or a real name) after one is unambiguous.
  const sharedState = makeState([...shared], ALL_WORKSPACES);
  const states = new Map<string, WorkspaceState>();
  for (const [workspace, rules] of Object.entries(rulesByWorkspace)) {
    if (workspace !== ALL_WORKSPACES) states.set(workspace, makeState([...rules.map(compileRule), ...shared], workspace));
  }
  const stateOf = (workspace: string): WorkspaceState => states.get(workspace) ?? sharedState;

  const permissionAt = (workspace: string, path: string): AclPermission => {
    const state = stateOf(workspace);
    // An absurd path is decided every time: remembered, it would only push real decisions out.
    if (path.length > LONGEST_CACHED_PATH) return decideAcl(state.rules, path);
    // The path is the caller's, and may be a slice keeping a whole URL alive: a decision is stored under
    // a copy of its own (or a digest when long), found without a digest per check when short.
    const text = state.prefix + path;
    const cached = cache.get(lookupKey(text));
    if (cached !== undefined) return cached;
    const permission = decideAcl(state.rules, path);
    const key = storedKey(text);
    cache.set(key, permission, storedKeyBytes(key));
    return permission;
  };

  return {
    permissionAt,
    canRead: (workspace, path) => ACL_RANK[permissionAt(workspace, path)] >= ACL_RANK.read,
    readsAll: (workspace) => stateOf(workspace).readsAll,
    readsNothing: (workspace) => stateOf(workspace).readsNothing,
    rulesFor: (workspace) => stateOf(workspace).rules,
  };
}

/** Descendants of `path` (never `path` itself) start with this. */
function descendantPrefix(path: string): string {
  return path === '/' ? '/' : `${path}/`;
}

/** True when `rule` matches every descendant of `path`. */
function coversDescendants(rule: CompiledAclRule, path: string): boolean {
  return rule.kind === 'prefix' && descendantPrefix(path).startsWith(rule.literal);
}

/** True when `rule` may match some descendant of `path` (globs other than prefixes: assumed so). */
function mayMatchDescendant(rule: CompiledAclRule, path: string): boolean {
  const below = descendantPrefix(path);
  switch (rule.kind) {
    case 'exact': return rule.literal.startsWith(below) && rule.literal.length > below.length;
    case 'prefix': return below.startsWith(rule.literal) || rule.literal.startsWith(below);
    default: return true;
  }
}

/**
 * True when every node of the subtree at `path`, whatever it holds now or later, is decided readWrite:
 * the rule deciding `path` is readWrite, and below it the first rule that can match any descendant and
 * is not readWrite comes after a readWrite rule matching them all. Decided by the rules alone, so the
 * answer tells nothing about nodes the caller cannot read.
 */
export function subtreeWritable(access: WorkspaceAccess, workspace: string, path: string): boolean {
  if (access.permissionAt(workspace, path) !== 'readWrite') return false;
  for (const rule of access.rulesFor(workspace)) {
    if (!mayMatchDescendant(rule, path)) continue;
    if (rule.permission !== 'readWrite') return false;
    if (coversDescendants(rule, path)) return true;
  }
  return false; // some descendant matches no rule (deny) or only narrower readWrite rules
}
