// Content model: the two states of a workspace when publishing is on (petal.yaml `publishing`). The
// working content lives in the workspace itself; the published content in an internal workspace of
// its own, `<workspace>@published`, with the same tables, indexes and readers, so everything that
// reads a workspace reads the published state unchanged. Outside names can never contain `@`
// (model/names.ts refuses them), so an internal name cannot be reached or forged from outside.

const PUBLISHED_SUFFIX = '@published';

/** The internal workspace holding the published state of `workspace` (idempotent). */
export function publishedWorkspace(workspace: string): string {
  return workspace.endsWith(PUBLISHED_SUFFIX) ? workspace : workspace + PUBLISHED_SUFFIX;
}

/** The workspace a stored one belongs to: `website` for `website@published`, itself otherwise. */
export function logicalWorkspace(stored: string): string {
  return stored.endsWith(PUBLISHED_SUFFIX) ? stored.slice(0, -PUBLISHED_SUFFIX.length) : stored;
}

export function isPublishedWorkspace(stored: string): boolean {
  return stored.endsWith(PUBLISHED_SUFFIX);
}
