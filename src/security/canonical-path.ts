// Security layer: the ONE canonical form of a request path. The router and the URI permission check
// both call canonicalPath on the raw request target, so no encoding trick (`..`, `%2e%2e`, `%2f`, `//`,
// `\`, overlong UTF-8, NUL) can make them see different paths (CWE-551, Tomcat CVE-2007-0450).
// The result must never be decoded again downstream.

export type CanonicalPath = { ok: true; path: string } | { ok: false; reason: string };

/** C0 controls, DEL and C1 controls: never part of a node or endpoint name. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A UTF-16 surrogate without its partner (only reachable through raw, undecoded input). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** `..;x` / `.;x`: a dot segment with Tomcat-style parameters; literal here, but never a real name. */
const DOT_WITH_PARAMS = /^\.\.?;/;

function fail(reason: string): CanonicalPath {
  return { ok: false, reason };
}

/** `''` and `/` mean "no context path"; a missing leading slash is added, trailing slashes dropped. */
function normalizeContextPath(contextPath: string): string {
  let ctx = contextPath.replace(/\/+$/, '');
  if (ctx !== '' && !ctx.startsWith('/')) ctx = `/${ctx}`;
  return ctx;
}

/**
 * Canonicalizes a raw request target (`/a/b?x#y`): drops query and fragment, percent-decodes once with
 * strict UTF-8, rejects control characters, backslashes and `..` segments, collapses `//`, drops `.`
 * segments, keeps a trailing slash, and strips `contextPath`. `;` and decoded `%2F` are plain
 * characters/separators, the same for routing and authorization.
 */
export function canonicalPath(rawUrl: string, contextPath: string): CanonicalPath {
  let end = rawUrl.length;
  const q = rawUrl.indexOf('?');
  if (q !== -1) end = q;
  const h = rawUrl.indexOf('#');
  if (h !== -1 && h < end) end = h;
  const raw = rawUrl.slice(0, end);
  if (raw.charCodeAt(0) !== 0x2f) return fail('path must start with /');

  let decoded: string;
  try {
    decoded = decodeURIComponent(raw); // throws on bad escapes, overlongs, surrogates, bytes > F4
  } catch {
    return fail('invalid percent-encoding or UTF-8');
  }
  if (LONE_SURROGATE.test(decoded)) return fail('invalid percent-encoding or UTF-8');
  if (CONTROL.test(decoded)) return fail('control character');
  if (decoded.includes('\\')) return fail('backslash');

  const segments = decoded.split('/'); // segments[0] is '' (the leading slash)
  const kept: string[] = [];
  for (let i = 1; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return fail('dot-dot segment');
    if (DOT_WITH_PARAMS.test(seg)) return fail('dot segment with parameters');
    kept.push(seg);
  }
  const last = segments[segments.length - 1];
  const trailingSlash = kept.length > 0 && (last === '' || last === '.');
  let path = kept.length === 0 ? '/' : `/${kept.join('/')}${trailingSlash ? '/' : ''}`;

  const ctx = normalizeContextPath(contextPath);
  if (ctx !== '') {
    if (path === ctx || path === `${ctx}/`) path = '/';
    else if (path.startsWith(`${ctx}/`)) path = path.slice(ctx.length);
    else return fail('outside context path');
  }
  return { ok: true, path };
}
