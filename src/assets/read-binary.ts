// Assets layer: an asset of the `dam` workspace as an HTTP representation (blob hash, size, type, file
// name, last modification), read through the caller's Session so workspace permissions apply: an asset
// the caller may not read is, here too, an asset that does not exist. Blobs are streamed in the
// store's 1 MiB chunks, never loaded whole.
import { Readable } from 'node:stream';
import { PetalError } from '../errors.js';
import type { Session } from '../repository/session.js';
import type { BlobReads } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import type { ScalarValue } from '../model/property-type.js';

export const DAM_WORKSPACE = 'dam';
export const ASSET_TYPE = 'cms:asset';
export const RESOURCE_NODE = 'jcr:content';
/** Size of the chunks blobs are stored and streamed in. */
export const BLOB_CHUNK_BYTES = 1 << 20;

/** What reading binaries needs of a store. */
export type BlobSource = BlobReads;

/** The technical metadata of an asset, read from its resource node (`jcr:content`). */
export interface AssetResourceInfo {
  /** The file name links use (`fileName`, with `.extension` added when it has none; else the node name). */
  readonly fileName: string;
  readonly extension: string | undefined;
  /** `jcr:mimeType`, else guessed from the extension, else `application/octet-stream`. */
  readonly mimeType: string;
  /** The `size` property (the blob's real size is authoritative when serving). */
  readonly size: number | undefined;
  readonly width: number | undefined;
  readonly height: number | undefined;
  /** `jcr:lastModified` of the resource, else `cms:lastModified` of the resource or the asset. */
  readonly lastModified: Date | undefined;
  /** sha256 hex of the binary (`jcr:data`), when it has one. */
  readonly hash: string | undefined;
}

/** An asset ready to be served. */
export interface AssetBinary extends AssetResourceInfo {
  /** The asset node's UUID (without `jcr:`). */
  readonly id: string;
  /** The asset node's path in workspace `dam`. */
  readonly path: string;
  readonly hash: string;
  /** Bytes of the stored blob. */
  readonly byteLength: number;
}

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', jpe: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp',
  svg: 'image/svg+xml', avif: 'image/avif', tif: 'image/tiff', tiff: 'image/tiff', bmp: 'image/bmp', ico: 'image/x-icon',
  pdf: 'application/pdf', mp4: 'video/mp4', webm: 'video/webm', mp3: 'audio/mpeg', txt: 'text/plain', json: 'application/json',
  zip: 'application/zip', css: 'text/css', js: 'text/javascript', woff: 'font/woff', woff2: 'font/woff2',
};

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;
const SHA256 = /^[0-9a-f]{64}$/;
/** `jcr:<id>` or a bare id: the characters of UUIDs and of the ids imports generate. */
const ASSET_ID = /^(?:jcr:)?([0-9A-Za-z][0-9A-Za-z_-]{0,99})$/;

function prop(node: NodeRecord, name: string): ScalarValue | readonly ScalarValue[] | undefined {
  for (const p of node.properties) if (p[0] === name) return p[2];
  return undefined;
}

function str(node: NodeRecord, name: string): string | undefined {
  const v = prop(node, name);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function num(node: NodeRecord, name: string): number | undefined {
  const v = prop(node, name);
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function date(node: NodeRecord, name: string): Date | undefined {
  const v = prop(node, name);
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** The MIME type for a file extension (without dot), if known. */
export function mimeTypeForExtension(extension: string | undefined): string | undefined {
  return extension === undefined ? undefined : MIME_BY_EXTENSION[extension.toLowerCase()];
}

/** The UUID of `jcr:<uuid>` or of a bare uuid, or undefined when the text cannot be an asset id. */
export function parseAssetId(text: string): string | undefined {
  return ASSET_ID.exec(text)?.[1];
}

/** Technical metadata of an asset from its resource node (and the asset node for fallbacks). */
export function resourceInfo(asset: NodeRecord, resource: NodeRecord | undefined): AssetResourceInfo {
  const r = resource;
  const named = (r && str(r, 'fileName')) ?? asset.name;
  const extension = (r && str(r, 'extension')) ?? (/\.([^./]+)$/.exec(named)?.[1]);
  const fileName = extension !== undefined && !named.includes('.') ? `${named}.${extension}` : named;
  const declared = r && str(r, 'jcr:mimeType');
  const mimeType = declared !== undefined && MIME_TYPE.test(declared)
    ? declared.toLowerCase()
    : mimeTypeForExtension(extension) ?? 'application/octet-stream';
  const data = r && prop(r, 'jcr:data');
  return {
    fileName,
    extension,
    mimeType,
    size: r && num(r, 'size'),
    width: r && num(r, 'width'),
    height: r && num(r, 'height'),
    lastModified: (r && (date(r, 'jcr:lastModified') ?? date(r, 'cms:lastModified'))) ?? date(asset, 'cms:lastModified'),
    hash: typeof data === 'string' && SHA256.test(data) ? data : undefined,
  };
}

/** One answer for every asset that cannot be served, so a hidden one cannot be told from a missing one. */
function missing(): PetalError {
  return new PetalError('pathNotFound', 'No asset with this id');
}

/**
 * The asset of `jcr:<uuid>` (or a bare uuid) in workspace `dam`, as the caller's session sees it.
 * Missing, unreadable, not an asset, or without a binary: all throw the same 404 `pathNotFound`.
 */
export async function resolveAsset(session: Session, blobs: BlobSource, idText: string): Promise<AssetBinary> {
  const id = parseAssetId(idText);
  if (id === undefined) throw missing();
  const [asset] = await session.getNodesByIds(DAM_WORKSPACE, [id]);
  return binaryOf(session, blobs, asset);
}

/** The asset at `path` of workspace `dam` (the original's rendition URLs name assets by path); as resolveAsset. */
export async function resolveAssetAt(session: Session, blobs: BlobSource, path: string): Promise<AssetBinary> {
  if (path === '/' || path === '') throw missing();
  return binaryOf(session, blobs, await session.getNode(DAM_WORKSPACE, path));
}

async function binaryOf(session: Session, blobs: BlobSource, asset: NodeRecord | undefined): Promise<AssetBinary> {
  if (asset === undefined || !session.types.isA(asset.type, ASSET_TYPE)) throw missing();
  const resourcePath = `${asset.path}/${RESOURCE_NODE}`;
  const resource = await session.getNode(DAM_WORKSPACE, resourcePath);
  if (resource === undefined) throw missing();
  const info = resourceInfo(asset, resource);
  if (info.hash === undefined) throw missing();
  const blob = await blobs.info(info.hash);
  if (blob === undefined) throw missing();
  return { ...info, id: asset.id, path: asset.path, hash: info.hash, byteLength: blob.size };
}

/**
 * A stream of bytes `start`..`end` (inclusive) of a blob, read one stored chunk at a time: at most
 * about one chunk is buffered, however large the blob.
 */
export class BlobReadStream extends Readable {
  readonly #blobs: BlobSource;
  readonly #hash: string;
  #pos: number;
  readonly #end: number;

  constructor(blobs: BlobSource, hash: string, start: number, end: number) {
    super({ highWaterMark: BLOB_CHUNK_BYTES });
    this.#blobs = blobs;
    this.#hash = hash;
    this.#pos = start;
    this.#end = end + 1;
  }

  override _read(): void {
    if (this.#pos >= this.#end) {
      this.push(null);
      return;
    }
    // Up to the next chunk boundary, so each read touches one stored chunk.
    const length = Math.min(BLOB_CHUNK_BYTES - (this.#pos % BLOB_CHUNK_BYTES), this.#end - this.#pos);
    this.#blobs.read(this.#hash, this.#pos, length).then((buf) => {
      if (this.destroyed) return;
      if (buf.length === 0) {
        this.destroy(new Error(`blob ${this.#hash} ends at ${this.#pos}, before ${this.#end}`));
        return;
      }
      this.#pos += buf.length;
      this.push(buf);
    }, (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))));
  }
}

/** Bytes `start`..`end` (inclusive) of a blob as a stream. */
export function openBlob(blobs: BlobSource, hash: string, start: number, end: number): Readable {
  return new BlobReadStream(blobs, hash, start, end);
}
