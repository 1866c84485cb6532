// Export layer: the file name `petal import` reads an export's place from (`website.travel.about.yaml`).

export type ExportFormat = 'yaml' | 'xml';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['yaml', 'xml'];

export function isExportFormat(text: string): text is ExportFormat {
  return text === 'yaml' || text === 'xml';
}

/** Why `path` of `workspace` cannot be exported as a file `petal import` places right, or undefined when it can. */
export function unnamableExport(workspace: string, path: string, format: ExportFormat): string | undefined {
  // The importer splits the file name on dots, so a dot inside a segment would move the content elsewhere.
  if (workspace === '' || workspace.includes('.')) return `workspace ${JSON.stringify(workspace)} cannot be named in an export file name`;
  const dotted = path.split('/').find((s) => s.includes('.'));
  if (dotted !== undefined) return `the path segment ${JSON.stringify(dotted)} holds a dot, which an export file name cannot carry`;
  // A YAML export holds exactly one node; only the system view has a root element for a whole workspace.
  if (path === '/' && format === 'yaml') return 'a whole workspace exports as xml only (a YAML export holds one node)';
  return undefined;
}

/** `('website', '/travel/about', 'yaml')` → `website.travel.about.yaml`; the workspace root → `website.xml`. */
export function exportFileName(workspace: string, path: string, format: ExportFormat): string {
  const segments = path.split('/').filter((s) => s !== '');
  return [workspace, ...segments].join('.') + `.${format}`;
}
