// Assets layer: the URLs Petal serves assets at (DESIGN.md §5), built in one place so the reference
// resolvers and the HTTP routes agree: `/dam/jcr:<uuid>/<fileName>` for the original and
// `/.imaging/<theme>/<variation>/dam/jcr:<uuid>/<fileName>` for a rendition. Each segment is
// percent-encoded once (the server decodes a request path exactly once).
import type { ThemeRegistry } from './themes.js';

export const DAM_PREFIX = '/dam';
export const IMAGING_PREFIX = '/.imaging';

/** One path segment, percent-encoded (RFC 3986 unreserved characters, `:` and a few sub-delims stay). */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%3A/gi, ':').replace(/%40/g, '@').replace(/%2C/gi, ',');
}

function idOf(assetId: string): string {
  return assetId.startsWith('jcr:') ? assetId.slice(4) : assetId;
}

/** `{contextPath}/dam/jcr:<uuid>/<fileName>`; `assetId` may be a uuid or `jcr:<uuid>`. */
export function assetLink(contextPath: string, assetId: string, fileName: string): string {
  return `${contextPath}${DAM_PREFIX}/jcr:${encodeSegment(idOf(assetId))}/${encodeSegment(fileName)}`;
}

/** `{contextPath}/.imaging/<theme>/<variation>/dam/jcr:<uuid>/<fileName>`. */
export function renditionLink(contextPath: string, theme: string, variation: string, assetId: string, fileName: string): string {
  return `${contextPath}${IMAGING_PREFIX}/${encodeSegment(theme)}/${encodeSegment(variation)}${assetLink('', assetId, fileName)}`;
}

/**
 * The link of rendition `variation` of theme `theme`, or the original's link when the theme is
 * undefined or has no such variation (SPEC: an undefined rendition links to the original).
 */
export function renditionLinkOrOriginal(
  themes: ThemeRegistry,
  theme: string | undefined,
  variation: string,
  contextPath: string,
  assetId: string,
  fileName: string,
): string {
  if (theme !== undefined && themes.variation(theme, variation) !== undefined) {
    return renditionLink(contextPath, theme, variation, assetId, fileName);
  }
  return assetLink(contextPath, assetId, fileName);
}
