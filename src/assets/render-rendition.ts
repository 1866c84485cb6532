// Assets layer: image renditions. A variation is a box (width and/or height); the image is turned
// upright (EXIF orientation), shrunk to fit inside the box with its aspect ratio kept (never enlarged),
// and written in the original's format (JPEG, PNG, WebP, GIF). Other types (SVG, PDF, unknown) have no
// renditions: the original is served. Inputs are spooled from the store to a scratch file first (sharp
// would buffer a stream input whole), images above `limitInputPixels` are refused before decoding, and
// the rendition cache bounds how many resizes run at once.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { openBlob, type AssetBinary, type BlobSource } from './read-binary.js';
import { RenditionCache, type CachedFile, type RenditionCacheOptions } from './rendition-cache.js';
import { ByteLru, stringBytes } from '../cache/byte-lru.js';
import type { Variation } from './themes.js';

/** Largest input image, in pixels (all frames together), a rendition is made of. */
export const DEFAULT_LIMIT_INPUT_PIXELS = 50_000_000;
/** Memory for remembering refused images (about 1,500 of them): a refusal costs a read of the whole original. */
const REFUSED_MEMO_BYTES = 1024 * 1024;
/** A resize taking longer than this is stopped. */
const RESIZE_TIMEOUT_SECONDS = 60;

type OutputFormat = 'jpeg' | 'png' | 'webp' | 'gif';

const FORMAT_BY_MIME: Readonly<Record<string, { format: OutputFormat; ext: string }>> = {
  'image/jpeg': { format: 'jpeg', ext: 'jpg' },
  'image/pjpeg': { format: 'jpeg', ext: 'jpg' },
  'image/jpg': { format: 'jpeg', ext: 'jpg' },
  'image/png': { format: 'png', ext: 'png' },
  'image/webp': { format: 'webp', ext: 'webp' },
  'image/gif': { format: 'gif', ext: 'gif' },
};

const MIME_BY_FORMAT: Readonly<Record<OutputFormat, string>> = {
  jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif',
};

/** The image cannot be made into a rendition (too many pixels, undecodable): a 422 for the client. */
export class ImageRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ImageRefusedError';
  }
}

/** True when assets of this MIME type get resized renditions (else the original is served). */
export function hasRenditions(mimeType: string): boolean {
  return FORMAT_BY_MIME[mimeType.toLowerCase()] !== undefined;
}

/** The cache key of a variation's box: `960x0` (width 960, any height), `480x360`. */
export function variationKey(v: Pick<Variation, 'width' | 'height'>): string {
  return `${v.width ?? 0}x${v.height ?? 0}`;
}

/** Strong ETag of a rendition: the blob's hash and the box (`"<sha256>-960x720"`). */
export function renditionEtag(hash: string, v: Pick<Variation, 'width' | 'height'>): string {
  return `"${hash}-${variationKey(v)}"`;
}

export type RenditionResult =
  /** No rendition for this type: serve the original. */
  | { readonly kind: 'original' }
  | { readonly kind: 'file'; readonly file: string; readonly size: number; readonly mimeType: string; readonly etag: string };

export interface RenditionServiceOptions extends RenditionCacheOptions {
  /** Largest input in pixels (default 50 000 000). */
  readonly limitInputPixels?: number;
  /** Called after each resize (for tests and metrics). */
  readonly onResize?: (asset: AssetBinary, variation: Variation) => void;
}

export class RenditionService {
  readonly cache: RenditionCache;
  readonly #blobs: BlobSource;
  readonly #limitInputPixels: number;
  readonly #onResize: ((asset: AssetBinary, variation: Variation) => void) | undefined;
  /** Images refused before decoding (too many pixels, undecodable), by blob hash: the message to repeat. */
  readonly #refused = new ByteLru<string, string>(REFUSED_MEMO_BYTES);
  /** Resizes done by this service (cache hits and shared requests not counted). */
  resizeCount = 0;
  /** Originals copied from the store to be inspected or resized. */
  inputReads = 0;

  constructor(blobs: BlobSource, o: RenditionServiceOptions) {
    this.#blobs = blobs;
    this.cache = new RenditionCache(o);
    this.#limitInputPixels = o.limitInputPixels ?? DEFAULT_LIMIT_INPUT_PIXELS;
    this.#onResize = o.onResize;
    // Operation and file caches of libvips hold memory and deleted scratch files: not wanted here.
    sharp.cache(false);
  }

  /** True when `rendition` makes a resized file (false: the original is the rendition). */
  resizes(asset: Pick<AssetBinary, 'mimeType'>, variation: Pick<Variation, 'width' | 'height'>): boolean {
    return hasRenditions(asset.mimeType) && (variation.width !== undefined || variation.height !== undefined);
  }

  /**
   * The rendition of `asset` for `variation`: from the disk cache, or resized now (once, however many
   * requests ask at the same time). Throws ImageRefusedError (422) and RenditionBusyError (503).
   */
  async rendition(asset: AssetBinary, variation: Variation): Promise<RenditionResult> {
    const out = FORMAT_BY_MIME[asset.mimeType.toLowerCase()];
    if (out === undefined || !this.resizes(asset, variation)) return { kind: 'original' };
    // The same blob is refused for every box, and whatever the caller: no need to read it again.
    const refused = this.#refused.get(asset.hash);
    if (refused !== undefined) throw new ImageRefusedError(refused);
    const file = this.cache.pathFor(asset.hash, variationKey(variation), out.ext);
    const cached: CachedFile = await this.cache.get(file, (temp) => this.#resize(asset, variation, out.format, temp));
    return { kind: 'file', file: cached.file, size: cached.size, mimeType: MIME_BY_FORMAT[out.format], etag: renditionEtag(asset.hash, variation) };
  }

  async #resize(asset: AssetBinary, variation: Variation, format: OutputFormat, target: string): Promise<void> {
    const source = this.cache.scratchFile('.src');
    try {
      this.inputReads++;
      await pipeline(openBlob(this.#blobs, asset.hash, 0, asset.byteLength - 1), createWriteStream(source, { mode: 0o600 }));
      const animated = format === 'gif' || format === 'webp';
      const input = { limitInputPixels: this.#limitInputPixels, failOn: 'error', animated, sequentialRead: true } as const;
      let meta: sharp.Metadata;
      try {
        meta = await sharp(source, { ...input, limitInputPixels: false }).metadata();
      } catch (err) {
        throw this.#remember(asset.hash, new ImageRefusedError(`The image cannot be decoded: ${messageOf(err, source)}`, { cause: err }));
      }
      const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0) * (meta.pages ?? 1);
      if (pixels > this.#limitInputPixels) {
        throw this.#remember(asset.hash, new ImageRefusedError(
          `The image is too large to resize: ${meta.width}x${meta.pageHeight ?? meta.height} pixels${(meta.pages ?? 1) > 1 ? ` in ${meta.pages} frames` : ''} `
          + `(at most ${this.#limitInputPixels} pixels)`,
        ));
      }
      let image = sharp(source, input)
        .timeout({ seconds: RESIZE_TIMEOUT_SECONDS })
        .rotate()
        .resize({
          ...(variation.width !== undefined ? { width: variation.width } : {}),
          ...(variation.height !== undefined ? { height: variation.height } : {}),
          fit: 'inside',
          withoutEnlargement: true,
        });
      switch (format) {
        case 'jpeg': image = image.jpeg({ quality: 85, mozjpeg: false }); break;
        case 'png': image = image.png({ compressionLevel: 6 }); break;
        case 'webp': image = image.webp({ quality: 85 }); break;
        case 'gif': image = image.gif(); break;
      }
      try {
        await image.toFile(target);
      } catch (err) {
        const m = messageOf(err, source);
        throw new ImageRefusedError(/pixel limit/i.test(m) ? `The image is too large to resize (at most ${this.#limitInputPixels} pixels)` : `The image cannot be resized: ${m}`, { cause: err });
      }
      this.resizeCount++;
      this.#onResize?.(asset, variation);
    } finally {
      await rm(source, { force: true });
    }
  }

  /** Refusals read from the image's header depend on its bytes alone, so they hold for the blob's hash. */
  #remember(hash: string, err: ImageRefusedError): ImageRefusedError {
    this.#refused.set(hash, err.message, stringBytes(hash) + stringBytes(err.message));
    return err;
  }
}

/** The first line of an error, without the scratch file's path, short enough for a response. */
function messageOf(err: unknown, source: string): string {
  return (err instanceof Error ? err.message : String(err)).split(source).join('input').split('\n')[0]!.slice(0, 200);
}
