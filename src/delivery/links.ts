// Delivery layer: how Petal writes links: to pages (`generateLink`, rich text), to asset originals
// (`/dam/jcr:<uuid>/<file>`) and to renditions (`/.imaging/<theme>/<variation>/dam/jcr:<uuid>/<file>`).
import { assetLink as damLink, defaultRenditionLink, themedRenditionLink } from '../assets/links.js';
import type { LinkConfig } from '../config/link-config.js';

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

export function pageLink(c: LinkConfig, path: string): string {
  let p = path;
  for (const m of c.mappings) {
    if (p === m.from || p.startsWith(`${m.from}/`)) {
      const rest = p.slice(m.from.length);
      p = `${m.to.replace(/\/$/, '')}${rest}` || '/';
      break;
    }
  }
  return `${c.contextPath}${encodePath(p)}${p === '/' ? '' : c.extension}`;
}

/** The original of an asset, as the `/dam` route serves it (one URL scheme, in assets/links.ts). */
export function assetLink(c: LinkConfig, uuid: string, fileName: string): string {
  return damLink(c.contextPath, uuid, fileName);
}

/** A rendition the theme defines, in the original's form (the `/.imaging` route serves it). */
export function renditionLink(c: LinkConfig, theme: string, variation: string, assetPath: string, fileName: string): string {
  return themedRenditionLink(c.contextPath, theme, variation, assetPath, fileName);
}

/** A rendition the theme does not define: the original's bytes, in the original's form. */
export function undefinedRenditionLink(c: LinkConfig, assetPath: string, extension: string | undefined): string {
  return defaultRenditionLink(c.contextPath, assetPath, extension);
}

/** A link made absolute on the base URL (or kept relative when there is none). */
export function completeUrl(c: LinkConfig, link: string): string {
  return c.baseUrl ? `${c.baseUrl.replace(/\/$/, '')}${link}` : link;
}
