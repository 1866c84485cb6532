// Assets layer: the URLs Petal serves assets at, built in one place so the reference resolvers and the
// HTTP routes agree. As the original CMS writes them: `/dam/jcr:<uuid>/<fileName>` for the original,
// `/.imaging/mte/<theme>/<variation>/dam/<asset path>/jcr:content/<fileName>` for a rendition of the
// theme, `/.imaging/default/dam/<asset path>/jcr:content.<extension>` for a rendition the theme does
// not define (the original's bytes). `/.imaging/<theme>/<variation>/dam/jcr:<uuid>/<fileName>`, the
// form of earlier releases, is still served. Each segment is percent-encoded once (the server decodes
// a request path exactly once).

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

/** The segment after `/.imaging/` of the original's form of a theme's rendition. */
export const THEMED_RENDITION = 'mte';
/** The segment after `/.imaging/` of the original's form of a rendition the theme does not define. */
export const DEFAULT_RENDITION = 'default';
/** The asset's resource node, which the original's rendition URLs name. */
export const RESOURCE_SEGMENT = 'jcr:content';

function encodePath(path: string): string {
  return path.split('/').filter((s) => s !== '').map(encodeSegment).map((s) => `/${s}`).join('');
}

/** `{contextPath}/.imaging/mte/<theme>/<variation>/dam/<asset path>/jcr:content/<fileName>`. */
export function themedRenditionLink(contextPath: string, theme: string, variation: string, assetPath: string, fileName: string): string {
  return `${contextPath}${IMAGING_PREFIX}/${THEMED_RENDITION}/${encodeSegment(theme)}/${encodeSegment(variation)}`
    + `${DAM_PREFIX}${encodePath(assetPath)}/${RESOURCE_SEGMENT}/${encodeSegment(fileName)}`;
}

/** `{contextPath}/.imaging/default/dam/<asset path>/jcr:content.<extension>` (the original's bytes). */
export function defaultRenditionLink(contextPath: string, assetPath: string, extension: string | undefined): string {
  const suffix = extension === undefined || extension === '' ? '' : `.${encodeSegment(extension)}`;
  return `${contextPath}${IMAGING_PREFIX}/${DEFAULT_RENDITION}${DAM_PREFIX}${encodePath(assetPath)}/${RESOURCE_SEGMENT}${suffix}`;
}

/** `{contextPath}/.imaging/<theme>/<variation>/dam/jcr:<uuid>/<fileName>` (earlier releases' form). */
export function renditionLink(contextPath: string, theme: string, variation: string, assetId: string, fileName: string): string {
  return `${contextPath}${IMAGING_PREFIX}/${encodeSegment(theme)}/${encodeSegment(variation)}${assetLink('', assetId, fileName)}`;
}
