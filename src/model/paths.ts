// Repository model: absolute node paths inside a workspace (`/` is the root).

/** The identifier of a workspace's root `/` (Jackrabbit's fixed one): never a stored node's. */
export const ROOT_IDENTIFIER = 'cafebabe-cafe-babe-cafe-babecafebabe';

export function joinPath(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Number of segments: 0 for `/`, 1 for `/a`. */
export function depthOf(path: string): number {
  if (path === '/') return 0;
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/** `/a/b/c` → [`/a`, `/a/b`] (proper ancestors, root excluded, top-down). */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  let i = path.indexOf('/', 1);
  while (i > 0) {
    out.push(path.slice(0, i));
    i = path.indexOf('/', i + 1);
  }
  return out;
}

/** Half-open range `[lo, hi)` of the paths strictly below `path`, for index range scans. */
export function descendantRange(path: string): [lo: string, hi: string] {
  const base = path === '/' ? '' : path;
  return [`${base}/`, `${base}0`]; // '0' is the code point after '/'
}

// Non-empty segments after single slashes, none `.` or `..`, no control characters, no trailing `/`.
const CANONICAL_PATH = /^(?:\/(?!\.{1,2}(?:\/|$))[^/\u0000-\u001f\u007f]+)+$/;

/**
 * Makes a path absolute and canonical: one leading `/`, no empty, `.` or trailing segments. Returns
 * undefined for `..` segments or control characters, which never name a node.
 */
export function normalizePath(raw: string): string | undefined {
  if (CANONICAL_PATH.test(raw)) return raw; // what front ends send: one test, no split and join
  const parts: string[] = [];
  for (const seg of raw.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return undefined;
    if (CONTROL_CHARACTER.test(seg)) return undefined;
    parts.push(seg);
  }
  return parts.length === 0 ? '/' : `/${parts.join('/')}`;
}

/** Hoisted: a regular expression literal in a function is a new object at each call (imports check millions of names). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** A node name as the repository accepts it: non-empty, no `/`, not `.`/`..`, no control characters. */
export function isValidName(name: string): boolean {
  return name.length > 0 && name !== '.' && name !== '..' && !name.includes('/') && !CONTROL_CHARACTER.test(name);
}
