// Assets layer: image renditions. A rendition is a box (width and/or height, from a theme's variation
// or a transform), a fit (sharp's; `inside` by default), an output format (the original's unless a
// transform names JPEG, PNG, WebP or AVIF) and a quality; the image is turned upright (EXIF
// orientation) and never enlarged. Other types (SVG, PDF, unknown) have no renditions: the original is
// served, transform parameters ignored. Inputs are spooled from the store to a scratch file first (sharp
// would buffer a stream input whole), images above `limitInputPixels` are refused before decoding, and
// the rendition cache bounds how many resizes run at once.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type SharpModule from 'sharp';
import { openBlob, type AssetBinary, type BlobSource } from './read-binary.js';
import { RenditionCache, type CachedFile, type RenditionCacheOptions } from './rendition-cache.js';
import { ByteLru, stringBytes } from '../cache/byte-lru.js';
import type { ImageFit } from '../config/load-config.js';

/** Largest input image, in pixels (all frames together), a rendition is made of. */
export const DEFAULT_LIMIT_INPUT_PIXELS = 50_000_000;
/** Memory for remembering refused images (about 1,500 of them): a refusal costs a read of the whole original. */
const REFUSED_MEMO_BYTES = 1024 * 1024;
/** A resize taking longer than this is stopped. */
const RESIZE_TIMEOUT_SECONDS = 60;

export type OutputFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif';

const FORMAT_BY_MIME: Readonly<Record<string, { format: OutputFormat; ext: string }>> = {
  'image/jpeg': { format: 'jpeg', ext: 'jpg' },
  'image/pjpeg': { format: 'jpeg', ext: 'jpg' },
  'image/jpg': { format: 'jpeg', ext: 'jpg' },
  'image/png': { format: 'png', ext: 'png' },
  'image/webp': { format: 'webp', ext: 'webp' },
  'image/gif': { format: 'gif', ext: 'gif' },
};

const MIME_BY_FORMAT: Readonly<Record<OutputFormat, string>> = {
  jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', avif: 'image/avif',
};
const EXT_BY_FORMAT: Readonly<Record<OutputFormat, string>> = { jpeg: 'jpg', png: 'png', webp: 'webp', gif: 'gif', avif: 'avif' };
/** Quality when none is asked for (formats without a quality setting have none). */
const DEFAULT_QUALITY: Readonly<Partial<Record<OutputFormat, number>>> = { jpeg: 85, webp: 85, avif: 60 };

/** What a rendition is made of; absent fields: no box, `inside`, the original's format, default quality. */
export interface RenditionSpec {
  readonly width?: number;
  readonly height?: number;
  readonly fit?: ImageFit;
  readonly quality?: number;
  readonly format?: Exclude<OutputFormat, 'gif'>;
}

/** A rendition to serve: its cache key (file name without extension), output format and ETag. */
export interface RenditionPlan {
  readonly spec: RenditionSpec;
  readonly key: string;
  readonly format: OutputFormat;
  readonly etag: string;
}

/** The image cannot be made into a rendition (too many pixels, undecodable): a 422 for the client. */
export class ImageRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ImageRefusedError';
  }
}

/** The format of an asset of a raster type that gets renditions. */
export function formatOf(asset: Pick<AssetBinary, 'mimeType'>): OutputFormat | undefined {
  return FORMAT_BY_MIME[asset.mimeType.toLowerCase()]?.format;
}

/** The file extension of a rendition in `format`. */
export function extensionOf(format: OutputFormat): string {
  return EXT_BY_FORMAT[format];
}

/** True when assets of this MIME type get resized renditions (else the original is served). */
export function hasRenditions(mimeType: string): boolean {
  return FORMAT_BY_MIME[mimeType.toLowerCase()] !== undefined;
}

/**
 * The rendition `spec` asks of `asset`, or undefined when the original is the answer (no raster type,
 * or nothing to change). The key names every parameter that changes the bytes, the file extension the
 * format: `960x0` (a theme's box), `640x480-cover-q70`. Parameters that change nothing are left out
 * (a fit with one side, the default quality), so equal renditions share one file. The ETag is the
 * blob's hash and the key, plus the extension when the format is not the original's
 * (`"<sha256>-960x720"`, `"<sha256>-960x0.avif"`).
 */
export function planRendition(asset: Pick<AssetBinary, 'mimeType' | 'hash'>, spec: RenditionSpec): RenditionPlan | undefined {
  const original = FORMAT_BY_MIME[asset.mimeType.toLowerCase()];
  if (original === undefined) return undefined;
  const format: OutputFormat = spec.format ?? original.format;
  const converted = format !== original.format;
  const defaultQuality = DEFAULT_QUALITY[format];
  const quality = defaultQuality !== undefined && spec.quality !== undefined && spec.quality !== defaultQuality ? `-q${spec.quality}` : '';
  if (spec.width === undefined && spec.height === undefined && !converted && quality === '') return undefined;
  const fit = spec.width !== undefined && spec.height !== undefined && spec.fit !== undefined && spec.fit !== 'inside' ? `-${spec.fit}` : '';
  const key = `${spec.width ?? 0}x${spec.height ?? 0}${fit}${quality}`;
  return { spec, key, format, etag: `"${asset.hash}-${key}${converted ? `.${EXT_BY_FORMAT[format]}` : ''}"` };
}

export type RenditionResult =
  /** No rendition for this type: serve the original. */
  | { readonly kind: 'original' }
  | { readonly kind: 'file'; readonly file: string; readonly size: number; readonly mimeType: string; readonly etag: string };

export interface RenditionServiceOptions extends RenditionCacheOptions {
  /** Largest input in pixels (default 50 000 000). */
  readonly limitInputPixels?: number;
  /** Called after each resize (for tests and metrics). */
  readonly onResize?: (asset: AssetBinary, spec: RenditionSpec) => void;
}

let sharpLoading: Promise<typeof SharpModule> | undefined;

/**
 * sharp and its libvips, loaded by the first resize: they hold about 20 MB of memory (and 2 MB of
 * heap, which sets how far the heap may grow between full collections) that a server which never
 * resizes would carry for nothing.
 */
function loadSharp(): Promise<typeof SharpModule> {
  return (sharpLoading ??= import('sharp').then(({ default: sharp }) => {
    // Operation and file caches of libvips hold memory and deleted scratch files: not wanted here.
    sharp.cache(false);
    return sharp;
  }));
}

export class RenditionService {
  readonly cache: RenditionCache;
  readonly #blobs: BlobSource;
  readonly #limitInputPixels: number;
  readonly #onResize: ((asset: AssetBinary, spec: RenditionSpec) => void) | undefined;
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
  }

  /**
   * The rendition of `asset` for `spec` (or for a plan made of it): from the disk cache, or made now
   * (once, however many requests ask at the same time). Throws ImageRefusedError (422) and
   * RenditionBusyError (503).
   */
  async rendition(asset: AssetBinary, spec: RenditionSpec | RenditionPlan): Promise<RenditionResult> {
    const plan = 'etag' in spec ? spec : planRendition(asset, spec);
    if (plan === undefined) return { kind: 'original' };
    // The same blob is refused for every box, and whatever the caller: no need to read it again.
    const refused = this.#refused.get(asset.hash);
    if (refused !== undefined) throw new ImageRefusedError(refused);
    const file = this.cache.pathFor(asset.hash, plan.key, EXT_BY_FORMAT[plan.format]);
    const cached: CachedFile = await this.cache.get(file, (temp) => this.#resize(asset, plan, temp));
    return { kind: 'file', file: cached.file, size: cached.size, mimeType: MIME_BY_FORMAT[plan.format], etag: plan.etag };
  }

  async #resize(asset: AssetBinary, plan: RenditionPlan, target: string): Promise<void> {
    const { spec, format } = plan;
    const inputFormat = FORMAT_BY_MIME[asset.mimeType.toLowerCase()]!.format;
    const sharp = await loadSharp();
    const source = this.cache.scratchFile('.src');
    try {
      this.inputReads++;
      await pipeline(openBlob(this.#blobs, asset.hash, 0, asset.byteLength - 1), createWriteStream(source, { mode: 0o600 }));
      // Frames are kept only where both formats have them; otherwise the first frame is the image.
      const animated = (inputFormat === 'gif' || inputFormat === 'webp') && (format === 'gif' || format === 'webp');
      const input = { limitInputPixels: this.#limitInputPixels, failOn: 'error', animated, sequentialRead: true } as const;
      let meta: SharpModule.Metadata;
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
      let image = sharp(source, input).timeout({ seconds: RESIZE_TIMEOUT_SECONDS }).rotate();
      if (spec.width !== undefined || spec.height !== undefined) {
        image = image.resize({
          ...(spec.width !== undefined ? { width: spec.width } : {}),
          ...(spec.height !== undefined ? { height: spec.height } : {}),
          fit: spec.fit ?? 'inside',
          withoutEnlargement: true,
        });
      }
      const quality = spec.quality ?? DEFAULT_QUALITY[format];
      switch (format) {
        case 'jpeg': image = image.jpeg({ quality, mozjpeg: false }); break;
        case 'png': image = image.png({ compressionLevel: 6 }); break;
        case 'webp': image = image.webp({ quality }); break;
        case 'avif': image = image.avif({ quality }); break;
        case 'gif': image = image.gif(); break;
      }
      try {
        await image.toFile(target);
      } catch (err) {
        const m = messageOf(err, source);
        throw new ImageRefusedError(/pixel limit/i.test(m) ? `The image is too large to resize (at most ${this.#limitInputPixels} pixels)` : `The image cannot be resized: ${m}`, { cause: err });
      }
      this.resizeCount++;
      this.#onResize?.(asset, spec);
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
