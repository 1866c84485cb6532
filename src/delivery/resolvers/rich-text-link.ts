// Delivery layer: richTextLinkReferenceResolver. Rich text of the original CMS carries link markers
// `${link:{uuid:{…},repository:{…},path:{…}}}`; they become page or asset URLs (absolute on the base
// URL with `completeUrl`). A marker whose target is missing or unreadable falls back to its stored path.
import type { NodeRecord } from '../../store/rows.js';
import type { LinkConfig } from '../../config/link-config.js';
import { assetLink, completeUrl, pageLink } from '../links.js';

export interface LinkMarker {
  readonly text: string;
  readonly uuid?: string;
  readonly repository: string;
  readonly path?: string;
}

const MARKER = /\$\{link:\{((?:\w+:\{[^{}]*\},?)*)\}\}/g;
const PAIR = /(\w+):\{([^{}]*)\}/g;

export function parseLinkMarkers(text: string): LinkMarker[] {
  if (!text.includes('${link:')) return [];
  const out: LinkMarker[] = [];
  for (const m of text.matchAll(MARKER)) {
    const fields = new Map<string, string>();
    for (const p of m[1]!.matchAll(PAIR)) fields.set(p[1]!, p[2]!);
    const uuid = fields.get('uuid');
    const path = fields.get('path') ?? fields.get('handle');
    out.push({
      text: m[0], repository: fields.get('repository') || 'website',
      ...(uuid ? { uuid } : {}), ...(path ? { path } : {}),
    });
  }
  return out;
}

export interface RichTextContext {
  readonly links: LinkConfig;
  readonly completeUrl: boolean;
  /** The resolved target of a marker (and, for assets, its resource node), or undefined. */
  target(repository: string, uuid: string): NodeRecord | undefined;
  resourceOf(asset: NodeRecord): NodeRecord | undefined;
}

export function rewriteRichText(text: string, c: RichTextContext): string {
  if (!text.includes('${link:')) return text;
  return text.replace(MARKER, (whole) => {
    const [m] = parseLinkMarkers(whole);
    if (!m) return whole;
    const node = m.uuid ? c.target(m.repository, m.uuid) : undefined;
    let link: string;
    if (node && m.repository === 'dam') {
      const res = c.resourceOf(node);
      const file = res?.properties.find((p) => p[0] === 'fileName')?.[2];
      link = assetLink(c.links, node.id, typeof file === 'string' ? file : node.name);
    } else if (node) {
      link = pageLink(c.links, node.path);
    } else if (m.path) {
      link = m.repository === 'dam' ? `${c.links.contextPath}/dam${m.path}` : pageLink(c.links, m.path);
    } else {
      return whole;
    }
    return c.completeUrl ? completeUrl(c.links, link) : link;
  });
}
