// Repository model: the namespace prefix of node types and system properties.
// Inside Petal every name uses the canonical `cms:` prefix; `mgnl:` (the original CMS's) is accepted on
// input and can be chosen for output (`namespace: mgnl`), so translation happens only at the edges.

export type Namespace = 'cms' | 'mgnl';

export const CANONICAL_PREFIX = 'cms:';
const LEGACY_PREFIX = 'mgnl:';

/** `mgnl:page` → `cms:page`; every other name is returned unchanged. */
export function toCanonicalName(name: string): string {
  return name.startsWith(LEGACY_PREFIX) ? CANONICAL_PREFIX + name.slice(LEGACY_PREFIX.length) : name;
}

/** Builds the output translation for a namespace once (at start), so the hot path does one call. */
export function outputNameFor(namespace: Namespace): (name: string) => string {
  if (namespace === 'cms') return identity;
  return (name) => (name.startsWith(CANONICAL_PREFIX) ? LEGACY_PREFIX + name.slice(CANONICAL_PREFIX.length) : name);
}

function identity(name: string): string {
  return name;
}

/** True for names that are system properties (`jcr:`, `cms:`, or `mgnl:` before translation). */
export function isSystemName(name: string): boolean {
  return name.startsWith('jcr:') || name.startsWith(CANONICAL_PREFIX) || name.startsWith(LEGACY_PREFIX);
}

/**
 * The one pattern of workspace names (URLs, export file names, the CLI, endpoint definitions,
 * petal.yaml): a lowercase letter, then letters, digits, `-` and `_`, 64 characters at most. It leaves
 * out `@` (kept for the published state's internal workspaces, store/publishing.ts), `.` (export file
 * names split on it), `*` (the ACL key of every workspace) and spaces, as real content's names do
 * (`website`, `dam`, `tours`, `shopProducts`).
 */
export const WORKSPACE_NAME = /^[a-z][A-Za-z0-9_-]{0,63}$/;

export function isWorkspaceName(name: string): boolean {
  return WORKSPACE_NAME.test(name);
}

export const WORKSPACE_NAME_RULE = 'a workspace name is a lowercase letter followed by letters, digits, - or _ (64 characters at most)';

/**
 * The existing workspace whose name differs from `name` only by case (`webSite` next to `website`),
 * which a new workspace may not take; undefined when there is none. Internal names (with `@`) are skipped.
 */
export function caseVariantOf(name: string, existing: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  for (const other of existing) {
    if (other !== name && !other.includes('@') && other.toLowerCase() === lower) return other;
  }
  return undefined;
}

/** Namespace prefixes of the repository and of Petal: a name may use them only as written here. */
const RESERVED_PREFIXES: ReadonlySet<string> = new Set(['cms', 'mgnl', 'jcr', 'rep', 'nt', 'mix']);

/**
 * Why a property name may not be stored, or undefined: a reserved prefix in another case (`Mgnl:`,
 * `JCR:`) would be stored as an ordinary property that looks like a system one.
 */
export function reservedPrefixProblem(name: string): string | undefined {
  const colon = name.indexOf(':');
  if (colon <= 0) return undefined;
  // A prefix of ASCII characters none upper-case is its own lower case: no strings built (every property of an import comes here).
  let plain = true;
  for (let i = 0; i < colon && plain; i++) {
    const c = name.charCodeAt(i);
    plain = c < 128 && (c < 65 || c > 90);
  }
  if (plain) return undefined;
  const prefix = name.slice(0, colon);
  const lower = prefix.toLowerCase();
  if (prefix === lower || !RESERVED_PREFIXES.has(lower)) return undefined;
  return `${JSON.stringify(name)}: the prefix ${lower}: is reserved and written in lowercase only`;
}
