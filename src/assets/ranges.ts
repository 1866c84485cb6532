// Assets layer: the HTTP validators and byte ranges of a binary response (RFC 9110 §13, §14), as pure
// functions of header values, so the routes only copy results into headers.

/** What to send for a `Range` header, given the representation's size. `end` is inclusive. */
export type RangeDecision =
  | { readonly kind: 'full' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const FULL: RangeDecision = { kind: 'full' };
const UNSATISFIABLE: RangeDecision = { kind: 'unsatisfiable' };

const SINGLE = /^bytes[ \t]*=[ \t]*(?:(\d+)[ \t]*-[ \t]*(\d*)|-[ \t]*(\d+))[ \t]*$/i;

/**
 * One range of `bytes=a-b`, `bytes=a-` or `bytes=-n`. A header that is absent, malformed, of another
 * unit, or asks for several ranges is ignored (the whole representation is sent with 200: RFC 9110
 * §14.2 lets a server ignore Range, and we never build multipart/byteranges). A valid range that starts
 * at or past the end (or a zero-length suffix) is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined || header.length > 200 || header.includes(',')) return FULL;
  const m = SINGLE.exec(header.trim());
  if (!m) return FULL;
  if (m[3] !== undefined) {
    const suffix = Number(m[3]);
    if (suffix === 0 || size === 0) return UNSATISFIABLE;
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? undefined : Number(m[2]);
  if (last !== undefined && last < start) return FULL; // invalid range-spec: ignore the header
  if (start >= size) return UNSATISFIABLE;
  return { kind: 'partial', start, end: last === undefined ? size - 1 : Math.min(last, size - 1) };
}

/** `Content-Range` of a 206 (`bytes 0-99/1234`) or of a 416 (`bytes *\/1234`). */
export function contentRange(decision: RangeDecision, size: number): string | undefined {
  if (decision.kind === 'partial') return `bytes ${decision.start}-${decision.end}/${size}`;
  if (decision.kind === 'unsatisfiable') return `bytes */${size}`;
  return undefined;
}

/** The entity tags of an `If-None-Match`/`If-Match` list, or `*`. Malformed items are skipped. */
function entityTags(header: string): { any: true } | { any: false; tags: { weak: boolean; opaque: string }[] } {
  if (header.trim() === '*') return { any: true };
  const tags: { weak: boolean; opaque: string }[] = [];
  const re = /(W\/)?("[^"]*")/g;
  for (let m = re.exec(header); m !== null; m = re.exec(header)) tags.push({ weak: m[1] !== undefined, opaque: m[2]! });
  return { any: false, tags };
}

/** True when `If-None-Match` matches `etag` (weak comparison, RFC 9110 §13.1.2). */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const parsed = entityTags(header);
  if (parsed.any) return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return parsed.tags.some((t) => t.opaque === opaque);
}

/** HTTP-date of a Date, truncated to the second (the resolution of Last-Modified). */
export function httpDate(d: Date): string {
  return d.toUTCString();
}

/**
 * Whether a GET/HEAD may answer 304 Not Modified: `If-None-Match` decides when present; otherwise
 * `If-Modified-Since` against `Last-Modified` (RFC 9110 §13.2.2).
 */
export function isNotModified(
  headers: { ifNoneMatch?: string | undefined; ifModifiedSince?: string | undefined },
  etag: string,
  lastModified: Date | undefined,
): boolean {
  if (headers.ifNoneMatch !== undefined) return noneMatchHits(headers.ifNoneMatch, etag);
  if (headers.ifModifiedSince !== undefined && lastModified !== undefined) {
    const since = Date.parse(headers.ifModifiedSince);
    if (Number.isNaN(since)) return false;
    return Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
  }
  return false;
}

/**
 * Whether a `Range` may be honoured given `If-Range` (RFC 9110 §13.1.5): absent → yes; an entity tag
 * must match strongly; a date must equal Last-Modified exactly.
 */
export function ifRangeAllows(header: string | undefined, etag: string, lastModified: Date | undefined): boolean {
  if (header === undefined) return true;
  const h = header.trim();
  if (h.startsWith('"') || h.startsWith('W/')) {
    return !h.startsWith('W/') && !etag.startsWith('W/') && h === etag;
  }
  if (lastModified === undefined) return false;
  const d = Date.parse(h);
  return !Number.isNaN(d) && Math.floor(d / 1000) === Math.floor(lastModified.getTime() / 1000);
}

/**
 * The decision for a request: Range is honoured only for GET (RFC 9110 §14.2: HEAD and other methods
 * ignore it) and when If-Range allows it.
 */
export function decideRange(
  method: string,
  headers: { range?: string | undefined; ifRange?: string | undefined },
  size: number,
  etag: string,
  lastModified: Date | undefined,
): RangeDecision {
  if (method !== 'GET' || headers.range === undefined) return FULL;
  if (!ifRangeAllows(headers.ifRange, etag, lastModified)) return FULL;
  return parseRange(headers.range, size);
}
