// HTTP layer: image renditions, `GET/HEAD {contextPath}/.imaging/<theme>/<variation>/dam/jcr:<uuid>/<fileName>`.
// Unknown theme or variation: 404 `notFound` (links to undefined renditions point at the original
// instead, so only hand-made URLs get here). The asset is read through the caller's session like an
// original; the rendition comes from the disk cache or is resized once. Types without renditions (SVG,
// PDF…) are served as the original.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveAsset } from '../../assets/read-binary.js';
import { IMAGING_PREFIX } from '../../assets/links.js';
import { ImageRefusedError, renditionEtag, type RenditionService } from '../../assets/render-rendition.js';
import { RenditionBusyError, RenditionCache } from '../../assets/rendition-cache.js';
import type { ThemeRegistry } from '../../assets/themes.js';
import { errorBody, sendError } from '../error-handler.js';
import { originalRepresentation, segmentsAfter, sendBinary, sendIfNotModified, type AssetRouteOptions } from './dam.js';

export interface ImagingRouteOptions extends AssetRouteOptions {
  readonly themes: ThemeRegistry;
  readonly renditions: RenditionService;
}

export function registerImagingRoutes(app: FastifyInstance, o: ImagingRouteOptions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const s = segmentsAfter(request.canonicalPath, IMAGING_PREFIX);
    if (s === undefined || s.length < 4 || s[2] !== 'dam') {
      return sendError(reply, 'notFound', 'Expected /.imaging/<theme>/<variation>/dam/jcr:<uuid>/<fileName>');
    }
    const [themeName, variationName] = [s[0]!, s[1]!];
    if (o.themes.theme(themeName) === undefined) return sendError(reply, 'notFound', `No theme ${JSON.stringify(themeName)}`);
    const variation = o.themes.variation(themeName, variationName);
    if (variation === undefined) {
      return sendError(reply, 'notFound', `Theme ${JSON.stringify(themeName)} has no image variation ${JSON.stringify(variationName)}`);
    }
    const session = o.repository.session(o.security.readAccess(request.caller));
    const asset = await resolveAsset(session, o.repository.store, s[3]!);

    if (!o.renditions.resizes(asset, variation)) return sendBinary(request, reply, originalRepresentation(o.repository, asset));
    // Validators first: a revalidation costs no resize and no disk access.
    if (sendIfNotModified(request, reply, renditionEtag(asset.hash, variation), asset.lastModified)) return reply;
    let result;
    try {
      result = await o.renditions.rendition(asset, variation);
    } catch (err) {
      if (err instanceof ImageRefusedError) {
        return reply.code(422).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store')
          .send(errorBody('badRequest', err.message));
      }
      if (err instanceof RenditionBusyError) return sendError(reply.header('retry-after', '2'), 'serviceUnavailable', err.message);
      throw err;
    }
    if (result.kind === 'original') return sendBinary(request, reply, originalRepresentation(o.repository, asset));
    const { file } = result;
    return sendBinary(request, reply, {
      etag: result.etag,
      size: result.size,
      mimeType: result.mimeType,
      lastModified: asset.lastModified,
      fileName: asset.fileName,
      // The file was checked as Petal's own; a symlink swapped in since is still not followed.
      open: (start, end) => RenditionCache.openRange(file, start, end),
    });
  };
  const prefix = `${o.contextPath}${IMAGING_PREFIX}`;
  for (const url of [prefix, `${prefix}/*`]) {
    app.route({ method: ['GET', 'HEAD'], url, handler });
    app.route({
      method: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
      url,
      handler: async (_request, reply) => sendError(reply.header('allow', 'GET, HEAD'), 'methodNotAllowed', 'Renditions are read-only: use GET'),
    });
  }
}
