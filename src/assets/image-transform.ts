// Assets layer: image transforms asked for in a URL's query (`?width=640&format=webp`, `?preset=card`).
// By default only named presets are served, so that a client cannot fill the rendition cache with
// endless variants; `imaging.transforms: free` allows any parameters within the limits below. Other
// query parameters (cache busters such as `?v=3`) are ignored, as links with them were served before.
import type { ImageFit, ImagePreset, ImagingConfig } from '../config/load-config.js';
import { PetalError } from '../errors.js';

export const FITS: readonly ImageFit[] = ['cover', 'contain', 'inside', 'outside'];
export const TRANSFORM_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'auto'] as const;
export type TransformFormat = (typeof TRANSFORM_FORMATS)[number];
/** Largest width or height a transform may ask for. */
export const MAX_DIMENSION = 4096;

/** What a request asks of an image; absent fields keep the variation's (or the original's). */
export type ImageTransform = ImagePreset;

export type TransformPolicy = Pick<ImagingConfig, 'transforms' | 'presets'>;

export const PRESETS_ONLY: TransformPolicy = Object.freeze({ transforms: 'presets', presets: {} });

const FREE_PARAMETERS = ['width', 'height', 'fit', 'quality', 'format'] as const;

function invalid(name: string, message: string): PetalError {
  return new PetalError('invalidParameter', `Parameter ${name}: ${message}`);
}

function single(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(name, 'give it once');
  return v;
}

function wholeNumber(query: Readonly<Record<string, unknown>>, name: string, max: number): number | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  const n = /^\d{1,6}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= max)) throw invalid(name, `expected a whole number from 1 to ${max}, got ${JSON.stringify(text.slice(0, 40))}`);
  return n;
}

function oneOf<T extends string>(query: Readonly<Record<string, unknown>>, name: string, values: readonly T[]): T | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  if (!(values as readonly string[]).includes(text)) throw invalid(name, `expected one of ${values.join(', ')}, got ${JSON.stringify(text.slice(0, 40))}`);
  return text as T;
}

/**
 * The transform a query asks for, or undefined when it asks for none. Throws PetalError
 * `invalidParameter` (400) naming the parameter for a bad value, an unknown preset, or a free
 * parameter while only presets are allowed. A preset and free parameters together: the parameters win.
 */
export function transformFromQuery(query: Readonly<Record<string, unknown>>, policy: TransformPolicy): ImageTransform | undefined {
  const free: ImageTransform = {
    width: wholeNumber(query, 'width', MAX_DIMENSION),
    height: wholeNumber(query, 'height', MAX_DIMENSION),
    fit: oneOf(query, 'fit', FITS),
    quality: wholeNumber(query, 'quality', 100),
    format: oneOf(query, 'format', TRANSFORM_FORMATS),
  };
  const given = FREE_PARAMETERS.filter((k) => free[k] !== undefined);
  if (given.length > 0 && policy.transforms !== 'free') {
    throw invalid(given[0]!, 'free image transforms are off (imaging.transforms: presets); ask for ?preset=<name>'
      + ` (${presetList(policy)}) or set imaging.transforms: free`);
  }
  const presetName = single(query, 'preset');
  let preset: ImagePreset | undefined;
  if (presetName !== undefined) {
    preset = Object.hasOwn(policy.presets, presetName) ? policy.presets[presetName] : undefined;
    if (preset === undefined) throw invalid('preset', `no preset ${JSON.stringify(presetName.slice(0, 64))} (${presetList(policy)})`);
  }
  if (preset === undefined && given.length === 0) return undefined;
  const out: { -readonly [K in keyof ImageTransform]: ImageTransform[K] } = { ...preset };
  for (const k of given) (out as Record<string, unknown>)[k] = free[k];
  return out;
}

function presetList(policy: TransformPolicy): string {
  const names = Object.keys(policy.presets);
  return names.length > 0 ? `defined: ${names.join(', ')}` : 'none is defined in imaging.presets';
}

/**
 * The output format `auto` stands for: AVIF, else WebP, when the Accept header names it with q > 0
 * (wildcards do not count: browsers send `*\/*` with every image request, AVIF-capable or not).
 */
export function autoFormat(accept: string | undefined): 'avif' | 'webp' | undefined {
  const taken = new Set<string>();
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (type) taken.add(type);
  }
  if (taken.has('image/avif')) return 'avif';
  if (taken.has('image/webp')) return 'webp';
  return undefined;
}
