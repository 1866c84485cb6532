// HTTP layer: the cache tags of a delivery answer, for CDNs (petal.yaml `cdn.tagHeader`): the keys of
// everything the answer read (repository/dependencies.ts: nodes by path, ids of references and assets, child
// lists, the workspace of a query), the same keys Petal's own response cache is dropped by and that a
// change purges (changeKeys), plus one key per endpoint. Keys are a letter and a 53-bit hash in base 36
// (at most 12 characters): two keys collide about once in 9·10^15 pairs, and a collision only purges an
// answer too many.
import type { TagHeader } from '../config/notify-config.js';

/**
 * Bytes of the header value at most: under Fastly's 16 KB Surrogate-Key and Cloudflare's 16 KB of
 * Cache-Tag per answer, with room for other headers. Past it, the answer is tagged by workspace.
 */
export const MAX_TAG_HEADER_BYTES = 8_192;

/** The space-separated tags of an answer: its keys, or its workspace keys when they would not fit. */
export function tagsOf(keys: readonly string[], workspaceKeys: () => readonly string[], endpoint: string): string {
  let bytes = endpoint.length;
  for (const k of keys) bytes += k.length + 1;
  const chosen = bytes <= MAX_TAG_HEADER_BYTES ? keys : workspaceKeys();
  return chosen.length === 0 ? endpoint : `${endpoint} ${chosen.join(' ')}`;
}

/** The headers carrying `tags` (space-separated) in the configured form. */
export function tagHeaders(form: TagHeader, tags: string): Record<string, string> {
  switch (form) {
    case 'surrogate-key': return { 'surrogate-key': tags };
    case 'cache-tag': return { 'cache-tag': tags.replaceAll(' ', ',') };
    case 'both': return { 'surrogate-key': tags, 'cache-tag': tags.replaceAll(' ', ',') };
    case 'none': return {};
  }
}
