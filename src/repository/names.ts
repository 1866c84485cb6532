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
 * Workspace names a caller may give (URLs, export file names, the CLI): any but those holding `@`,
 * which Petal keeps for the published state's internal workspaces (store/publishing.ts).
 */
export function isWorkspaceName(name: string): boolean {
  return name !== '' && !name.includes('@');
}

export const WORKSPACE_NAME_RULE = 'a workspace name cannot contain @';
