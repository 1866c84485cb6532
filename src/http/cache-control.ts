// HTTP layer: the Cache-Control of a delivery answer. An endpoint's `cacheControl` (else petal.yaml's)
// gives the directives; `timeToLive` keeps its meaning (max-age) unless the endpoint's own
// `cacheControl.maxAge` says otherwise, and beats petal.yaml's default. Only answers
// to anonymous callers may be kept by shared caches: a signed-in caller's answer is `private` (and
// gets no directive meant for shared caches); the preview is never stored at all (content-state.ts).
import type { CacheControlConfig } from '../config/notify-config.js';
import { PREVIEW_CACHE_CONTROL } from './content-state.js';

export interface CacheControlInput {
  /** The endpoint definition's own `cacheControl`. */
  readonly endpoint?: CacheControlConfig;
  /** petal.yaml `cacheControl`. */
  readonly defaults?: CacheControlConfig;
  /** The definition's `timeToLive` (seconds). */
  readonly timeToLive?: number;
  readonly anonymous: boolean;
  readonly preview: boolean;
}

/** The header value, or undefined when nothing is configured (then no header, as before). */
export function cacheControlOf(o: CacheControlInput): string | undefined {
  if (o.preview) return PREVIEW_CACHE_CONTROL;
  const c = o.endpoint ?? o.defaults;
  // The endpoint's own word first: its cacheControl, then its timeToLive, then petal.yaml's default.
  const maxAge = o.endpoint?.maxAge ?? o.timeToLive ?? o.defaults?.maxAge;
  if (!o.anonymous) return maxAge === undefined ? undefined : `private, max-age=${maxAge}`;
  const parts: string[] = [];
  if (maxAge !== undefined) parts.push(`max-age=${maxAge}`);
  if (c?.sMaxAge !== undefined) parts.push(`s-maxage=${c.sMaxAge}`);
  if (c?.staleWhileRevalidate !== undefined) parts.push(`stale-while-revalidate=${c.staleWhileRevalidate}`);
  if (c?.staleIfError !== undefined) parts.push(`stale-if-error=${c.staleIfError}`);
  if (parts.length === 0) return undefined;
  // `timeToLive` alone keeps the header it always gave; a `cacheControl` says `public` outright.
  return c === undefined ? parts.join(', ') : `public, ${parts.join(', ')}`;
}
