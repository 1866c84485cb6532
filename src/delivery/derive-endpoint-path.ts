// Delivery layer: derives an endpoint path from the location of its definition file below `restEndpoints/`.

const YAML_EXTENSION = '.yaml';
const YML_EXTENSION = '.yml';

/** True for `.yml` files, which the original CMS ignores and Petal rejects with a clear message. */
export function isYmlExtension(file: string): boolean {
  return file.toLowerCase().endsWith(YML_EXTENSION);
}

/**
 * `delivery/stories_v3.yaml` → `/delivery/stories/v3` (without the `/.rest` prefix).
 * The file name is `<endpoint-name>_<version-tag>`: it is split at the last underscore only, and only
 * when both parts are non-empty, so `my_tours_v1` → `my_tours/v1` and `_v1` stays as it is.
 */
export function deriveEndpointPath(relativeFile: string): string {
  const segments = relativeFile.replaceAll('\\', '/').split('/').filter((s) => s !== '' && s !== '.');
  const last = segments.pop() ?? '';
  const name = stripExtension(last);
  const cut = name.lastIndexOf('_');
  if (cut > 0 && cut < name.length - 1) {
    segments.push(name.slice(0, cut), name.slice(cut + 1));
  } else {
    segments.push(name);
  }
  return '/' + segments.join('/');
}

function stripExtension(fileName: string): string {
  const lower = fileName.toLowerCase();
  if (lower.endsWith(YAML_EXTENSION)) return fileName.slice(0, -YAML_EXTENSION.length);
  if (lower.endsWith(YML_EXTENSION)) return fileName.slice(0, -YML_EXTENSION.length);
  return fileName;
}
