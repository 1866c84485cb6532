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

/**
 * Paths longer than this are not kept as misses (a 404 answer, an empty subtree read) nor as
 * permission decisions: no content path comes near it, and a flood of random long paths would only
 * push useful entries out. Such a request is answered from the store every time.
 */
export const LONGEST_CACHED_PATH = 1_024;
