// Store layer: the schema migrations both backends number and name alike; each backend gives its own
// SQL for them in its migrations.ts (versions 5 to 7 differ between the backends).

const NAMES: Readonly<Record<number, string>> = {
  3: 'content versions',
  4: 'change events',
  8: 'publishing: schedules, version comments',
  9: 'webhooks: cursors and deliveries',
  10: 'publishing: whose rights a schedule runs with',
  11: 'bootstrap files: imported once, by content hash',
};

/** Shared migration `version`, with the backend's `sql`. */
export function sharedMigration(version: number, sql: string): { readonly version: number; readonly name: string; readonly sql: string } {
  const name = NAMES[version];
  if (name === undefined) throw new Error(`no shared migration ${version}`);
  return { version, name, sql };
}
