// HTTP layer: originals of assets, `GET/HEAD {contextPath}/dam/jcr:<uuid>/<fileName>`, or renditions of
// them when the query asks for a transform (send-image.ts). The asset is read
// through the caller's session (a hidden asset is a missing one); the bytes are streamed from the store
// with validators (strong ETag = the blob's sha256, Last-Modified), 304s, single byte ranges (206/416)
// and caching headers. The file-name segment is not checked (as in the original CMS): the real name
// goes in Content-Disposition.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { openBlob, resolveAsset, type AssetBinary } from '../../assets/read-binary.js';
import { contentRange, decideRange, httpDate, isNotModified } from '../../assets/ranges.js';
import { DAM_PREFIX } from '../../assets/links.js';
import type { Repository } from '../../repository/session.js';
import type { SecurityService } from '../../security/security-service.js';
import { sendError } from '../error-handler.js';
import { isPreviewRequest, PREVIEW_CACHE_CONTROL } from '../content-state.js';
import type { TransformPolicy } from '../../assets/image-transform.js';
import { requestedTransform, sendImage, type ImageSource } from './send-image.js';
import { readOnlyRoutes } from './read-only-routes.js';

export interface AssetRouteOptions {
  readonly repository: Repository;
  readonly security: SecurityService;
  readonly contextPath: string;
}

/** Seconds browsers and shared caches may keep an asset or rendition. */
export const ASSET_MAX_AGE = 86_400;

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** RFC 8187 `filename*` value: UTF-8, percent-encoded (attr-char stays). */
export function contentDisposition(fileName: string): string {
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename*=UTF-8''${encoded}`;
}

export interface BinaryRepresentation {
  readonly etag: string;
  readonly size: number;
  readonly mimeType: string;
  readonly lastModified: Date | undefined;
  readonly fileName: string;
  /** Bytes `start`..`end` (inclusive). */
  open(start: number, end: number): Readable;
}

/**
 * Sets the validators and caching headers of a binary response and, when the request's validators
 * match (If-None-Match, else If-Modified-Since), sends 304 and returns true. Public caching only for
 * anonymous callers (what a signed-in user sees may be theirs alone), none for the preview.
 */
export function sendIfNotModified(request: FastifyRequest, reply: FastifyReply, etag: string, lastModified: Date | undefined): boolean {
  reply
    .header('etag', etag)
    .header('cache-control', isPreviewRequest(request.raw) ? PREVIEW_CACHE_CONTROL
      : `${request.caller.via === 'anonymous' ? 'public' : 'private'}, max-age=${ASSET_MAX_AGE}`)
    .header('accept-ranges', 'bytes')
    .header('x-content-type-options', 'nosniff')
    // An SVG or HTML asset opened directly must not run scripts on this origin.
    .header('content-security-policy', "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox");
  if (lastModified !== undefined) reply.header('last-modified', httpDate(lastModified));
  if (!isNotModified({ ifNoneMatch: header(request, 'if-none-match'), ifModifiedSince: header(request, 'if-modified-since') }, etag, lastModified)) {
    return false;
  }
  reply.code(304).send();
  return true;
}

/**
 * Sends a binary representation for GET or HEAD: 304 when the validators match, 416 for an
 * unsatisfiable range, 206 for one satisfiable range, else 200 with everything. HEAD never opens the
 * bytes.
 */
export function sendBinary(request: FastifyRequest, reply: FastifyReply, r: BinaryRepresentation): FastifyReply {
  if (sendIfNotModified(request, reply, r.etag, r.lastModified)) return reply;
  reply.header('content-type', r.mimeType).header('content-disposition', contentDisposition(r.fileName));
  const range = decideRange(request.method, { range: header(request, 'range'), ifRange: header(request, 'if-range') }, r.size, r.etag, r.lastModified);
  if (range.kind === 'unsatisfiable') {
    return reply.code(416).header('content-range', contentRange(range, r.size)!).header('content-length', '0').send();
  }
  const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, r.size - 1];
  const length = end - start + 1;
  if (range.kind === 'partial') reply.code(206).header('content-range', contentRange(range, r.size)!);
  reply.header('content-length', String(length));
  if (request.method === 'HEAD' || length === 0) return reply.send();
  return reply.send(r.open(start, end));
}

/** The segments of a canonical path after `prefix` (`/dam/a/b` → `['a', 'b']`), or undefined. */
export function segmentsAfter(canonical: string, prefix: string): string[] | undefined {
  if (canonical !== prefix && !canonical.startsWith(`${prefix}/`)) return undefined;
  return canonical.slice(prefix.length).split('/').filter((s) => s !== '');
}

export function originalRepresentation(repository: Repository, asset: AssetBinary): BinaryRepresentation {
  return {
    etag: `"${asset.hash}"`,
    size: asset.byteLength,
    mimeType: asset.mimeType,
    lastModified: asset.lastModified,
    fileName: asset.fileName,
    open: (start, end) => openBlob(repository.store.blobs, asset.hash, start, end),
  };
}

export interface ImageRouteOptions extends AssetRouteOptions, ImageSource {
  /** Which transforms the query may ask for (petal.yaml `imaging.transforms`, `imaging.presets`). */
  readonly imaging: TransformPolicy;
}

export function registerDamRoutes(app: FastifyInstance, o: ImageRouteOptions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const segments = segmentsAfter(request.canonicalPath, DAM_PREFIX);
    // `/dam/jcr:<uuid>` with any (or no) file name after it.
    if (segments === undefined || segments.length === 0) return sendError(reply, 'pathNotFound', 'No asset with this id');
    const transform = requestedTransform(request, o.imaging);
    const session = o.repository.session(o.security.readAccess(request.caller), undefined, request.contentState);
    const asset = await resolveAsset(session, o.repository.store.blobs, segments[0]!);
    if (transform === undefined) return sendBinary(request, reply, originalRepresentation(o.repository, asset));
    return sendImage(request, reply, o, asset, undefined, transform);
  };
  const prefix = `${o.contextPath}${DAM_PREFIX}`;
  readOnlyRoutes(app, prefix, handler, 'Assets are read-only: use GET');
}
