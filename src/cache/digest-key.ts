// The key under which a cache keeps what a caller chose (a path, a query string, a role set with a
// URL): a SHA-256 digest of the text, not the text. A key built from a request can be a sliced or cons
// string that keeps the whole URL (or a longer path) alive, and takes two bytes a character once one
// character is not Latin-1, so its length says little about what it holds; a digest is a fresh, flat,
// 44-character one-byte string whatever the text. Cryptographic, because a collision would hand one
// key's entry to another (another role set's answer, another path's permission).
import { hash } from 'node:crypto';

/** What a digest key costs in V8: a 16-byte header and 44 one-byte characters, rounded up to 8. */
export const DIGEST_KEY_BYTES = 64;

export function digestKey(text: string): string {
  return hash('sha256', text, 'base64');
}

/** Texts up to this long are keys as themselves (`lookupKey`, `storedKey`); longer ones by their digest. */
export const LONGEST_TEXT_KEY = 256;
const DIGEST_LENGTH = 44;
const EQUALS = 0x3d;

/**
 * The key to look `text` up under: a short text itself, a long one its digest. A SHA-256 digest costs
 * about 1.5 µs, the most of a cached answer's look-up (bench/RESULTS.md, issue 31), where a Map finds a
 * short text by its hash and one comparison. The two kinds never meet: every digest is 44 characters
 * ending in `=` (base64 of 32 bytes), and a text of that shape is digested too.
 */
export function lookupKey(text: string): string {
  return text.length > LONGEST_TEXT_KEY || (text.length === DIGEST_LENGTH && text.charCodeAt(DIGEST_LENGTH - 1) === EQUALS)
    ? digestKey(text) : text;
}

/**
 * The key to store `text` under, equal to its `lookupKey`: a short text as a fresh flat copy, since the
 * text itself may be a concatenation or slice holding on to a whole URL. Made once per stored entry.
 */
export function storedKey(text: string): string {
  const key = lookupKey(text);
  // UTF-16 both ways: a copy of every code unit, lone surrogates too (UTF-8 would replace them).
  return key === text ? Buffer.from(text, 'utf16le').toString('utf16le') : key;
}

/** What a stored key costs in V8 at most: a header and two bytes a character, rounded up to 8. */
export function storedKeyBytes(key: string): number {
  return 16 + ((key.length * 2 + 7) & ~7);
}

/**
 * Paths longer than this are not kept as misses (a 404 answer, an empty subtree read) nor as
 * permission decisions: no content path comes near it, and a flood of random long paths would only
 * push useful entries out. Such a request is answered from the store every time.
 */
export const LONGEST_CACHED_PATH = 1_024;
