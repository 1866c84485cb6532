// Ingest layer: the bounds a hostile export meets. An export is trusted content, but it may come from
// elsewhere (a partner, a backup of unknown origin), and one small file must not exhaust memory or stack.

/** Longest non-binary value, in characters (binaries are spooled to disk, not held). */
export const MAX_IMPORT_VALUE_CHARS = 16 * 1024 * 1024;
/** Deepest node nesting (Magnolia's own exports stay far below; recursion past this would exhaust the stack). */
export const MAX_IMPORT_DEPTH = 1000;
/** Nodes and values that YAML aliases may add to an export beyond those written out (a "billion laughs" adds billions). */
export const MAX_ALIAS_EXPANSION = 10_000;
