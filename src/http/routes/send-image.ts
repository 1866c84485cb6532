// HTTP layer: answers an image request, `/dam/…` or `/.imaging/…`, with the rendition a theme's box
// and the query's transform ask for, or with the original when there is nothing to change (or the type
// has no renditions). `format=auto` picks AVIF or WebP by the Accept header: such answers carry
// `Vary: Accept`. Validators are checked before any resize, so a revalidation costs no work.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AssetBinary } from '../../assets/read-binary.js';
import { autoFormat, transformFromQuery, type ImageTransform, type TransformPolicy } from '../../assets/image-transform.js';
import { extensionOf, formatOf, hasRenditions, ImageRefusedError, planRendition, type RenditionService, type RenditionSpec } from '../../assets/render-rendition.js';
import { RenditionBusyError, RenditionCache } from '../../assets/rendition-cache.js';
import type { Repository } from '../../repository/session.js';
import { errorBody, sendError } from '../error-handler.js';
import { originalRepresentation, sendBinary, sendIfNotModified } from './dam.js';

export interface ImageSource {
  readonly repository: Repository;
  readonly renditions: RenditionService;
}

/** The transform of the request's query (PetalError `invalidParameter` for a bad or refused one). */
export function requestedTransform(request: FastifyRequest, policy: TransformPolicy): ImageTransform | undefined {
  return transformFromQuery((request.query ?? {}) as Readonly<Record<string, unknown>>, policy);
}

/**
 * The spec of a rendition: the transform's box when it gives a side, else the theme's box; its fit,
 * quality and format; `auto` resolved against the Accept header.
 */
function specOf(request: FastifyRequest, reply: FastifyReply, asset: AssetBinary, box: Pick<RenditionSpec, 'width' | 'height'> | undefined, t: ImageTransform | undefined): RenditionSpec {
  const ownBox = t !== undefined && (t.width !== undefined || t.height !== undefined);
  const { width, height } = ownBox ? t : box ?? {};
  let format: RenditionSpec['format'];
  if (t?.format === 'auto') {
    if (hasRenditions(asset.mimeType)) addVary(reply, 'Accept');
    format = autoFormat(request.headers.accept);
  } else {
    format = t?.format;
  }
  return {
    ...(width !== undefined ? { width } : {}),
    ...(height !== undefined ? { height } : {}),
    ...(t?.fit !== undefined ? { fit: t.fit } : {}),
    ...(t?.quality !== undefined ? { quality: t.quality } : {}),
    ...(format !== undefined ? { format } : {}),
  };
}

function addVary(reply: FastifyReply, name: string): void {
  const prev = reply.getHeader('vary');
  const list = prev === undefined ? [] : String(prev).split(',').map((s) => s.trim()).filter(Boolean);
  if (!list.some((v) => v.toLowerCase() === name.toLowerCase())) list.push(name);
  reply.header('vary', list.join(', '));
}

/** Sends `asset` as the rendition `box` + `transform` make of it (or the original). */
export async function sendImage(
  request: FastifyRequest, reply: FastifyReply, o: ImageSource, asset: AssetBinary,
  box: Pick<RenditionSpec, 'width' | 'height'> | undefined, transform: ImageTransform | undefined,
): Promise<FastifyReply> {
  const plan = planRendition(asset, specOf(request, reply, asset, box, transform));
  if (plan === undefined) return sendBinary(request, reply, originalRepresentation(o.repository, asset));
  if (sendIfNotModified(request, reply, plan.etag, asset.lastModified)) return reply;
  let result;
  try {
    result = await o.renditions.rendition(asset, plan);
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
    // A converted image is saved under its own extension (`photo.jpg` as WebP: `photo.webp`).
    fileName: plan.format === formatOf(asset) ? asset.fileName : `${asset.fileName.replace(/\.[^.]*$/, '')}.${extensionOf(plan.format)}`,
    // The file was checked as Petal's own; a symlink swapped in since is still not followed.
    open: (start, end) => RenditionCache.openRange(file, start, end),
  });
}
