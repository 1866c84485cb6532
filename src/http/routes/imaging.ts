// HTTP layer: image renditions in the three forms of assets/links.ts: the original's
// `/.imaging/mte/<theme>/<variation>/dam/<asset path>/jcr:content/<fileName>`, its
// `/.imaging/default/dam/<asset path>/jcr:content.<ext>` (a rendition the theme does not define: the
// original's bytes), and earlier releases' `/.imaging/<theme>/<variation>/dam/jcr:<uuid>/<fileName>`.
// Unknown theme or variation: 404 `notFound` (links to undefined renditions use the default form, so
// only hand-made URLs get here). Every form takes the query's transforms (send-image.ts). The asset is
// read through the caller's session like an original; the rendition comes from the disk cache or is
// made once. Types without renditions (SVG, PDF…) are served as the original.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveAsset, resolveAssetAt } from '../../assets/read-binary.js';
import { DEFAULT_RENDITION, IMAGING_PREFIX, RESOURCE_SEGMENT, THEMED_RENDITION } from '../../assets/links.js';
import type { ThemeRegistry } from '../../assets/themes.js';
import { sendError } from '../error-handler.js';
import { segmentsAfter, type ImageRouteOptions } from './dam.js';
import { requestedTransform, sendImage } from './send-image.js';
import { readOnlyRoutes } from './read-only-routes.js';

export interface ImagingRouteOptions extends ImageRouteOptions {
  readonly themes: ThemeRegistry;
}

type ImagingTarget =
  | { readonly kind: 'byPath'; readonly theme: string; readonly variation: string; readonly assetPath: string }
  | { readonly kind: 'byId'; readonly theme: string; readonly variation: string; readonly assetId: string }
  | { readonly kind: 'default'; readonly assetPath: string };

/** The rendition a path below `/.imaging` names, in any of the three forms; undefined for none. */
export function parseImagingPath(s: readonly string[]): ImagingTarget | undefined {
  // Earlier releases' form first: exactly five segments with a `jcr:<uuid>` in the fourth.
  if (s.length === 5 && s[2] === 'dam' && s[3]!.startsWith('jcr:') && s[3] !== RESOURCE_SEGMENT) {
    return { kind: 'byId', theme: s[0]!, variation: s[1]!, assetId: s[3]! };
  }
  if (s[0] === THEMED_RENDITION && s.length >= 7 && s[3] === 'dam' && s[s.length - 2] === RESOURCE_SEGMENT) {
    return { kind: 'byPath', theme: s[1]!, variation: s[2]!, assetPath: `/${s.slice(4, -2).join('/')}` };
  }
  const last = s[s.length - 1] ?? '';
  if (s[0] === DEFAULT_RENDITION && s.length >= 4 && s[1] === 'dam' && (last === RESOURCE_SEGMENT || last.startsWith(`${RESOURCE_SEGMENT}.`))) {
    return { kind: 'default', assetPath: `/${s.slice(2, -1).join('/')}` };
  }
  return undefined;
}

export function registerImagingRoutes(app: FastifyInstance, o: ImagingRouteOptions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const target = parseImagingPath(segmentsAfter(request.canonicalPath, IMAGING_PREFIX) ?? []);
    if (target === undefined) {
      return sendError(reply, 'notFound', 'Expected /.imaging/mte/<theme>/<variation>/dam/<asset path>/jcr:content/<fileName> or /.imaging/default/dam/<asset path>/jcr:content.<extension>');
    }
    const transform = requestedTransform(request, o.imaging);
    const session = o.repository.session(o.security.readAccess(request.caller), undefined, request.contentState);
    if (target.kind === 'default') {
      const asset = await resolveAssetAt(session, o.repository.store.blobs, target.assetPath);
      return sendImage(request, reply, o, asset, undefined, transform);
    }
    const { theme: themeName, variation: variationName } = target;
    if (o.themes.theme(themeName) === undefined) return sendError(reply, 'notFound', `No theme ${JSON.stringify(themeName)}`);
    const variation = o.themes.variation(themeName, variationName);
    if (variation === undefined) {
      return sendError(reply, 'notFound', `Theme ${JSON.stringify(themeName)} has no image variation ${JSON.stringify(variationName)}`);
    }
    const asset = target.kind === 'byId'
      ? await resolveAsset(session, o.repository.store.blobs, target.assetId)
      : await resolveAssetAt(session, o.repository.store.blobs, target.assetPath);

    return sendImage(request, reply, o, asset, variation, transform);
  };
  const prefix = `${o.contextPath}${IMAGING_PREFIX}`;
  readOnlyRoutes(app, prefix, handler, 'Renditions are read-only: use GET');
}
