// Ingest layer: a string that does not keep the chunk it was read from alive.

/** V8 copies a slice shorter than this; a longer one is a view that holds its whole parent string. */
const SHORTEST_VIEW = 13;

/**
 * `text` as a string of its own. A value sliced from a 256 KiB chunk of the file is a view of the chunk:
 * a draft held while its subtree is read would keep every chunk alive across young-generation
 * collections, so the whole file would be promoted to the old generation (about 80 MB per 100,000
 * nodes of the bench file) and the heap grow until a full collection. The concatenation makes V8 copy
 * the characters when the result is sliced; the view then holds only that copy.
 */
export function detached(text: string): string {
  return text.length < SHORTEST_VIEW ? text : (text + ' ').slice(0, -1);
}
