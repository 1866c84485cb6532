// Store layer: the rows a ContentStore reads and writes: nodes, binaries. No HTTP, no rendering.
import type { StoredProperty } from '../model/property-type.js';

/** One node as stored. Paths are absolute in the workspace (`/` is the root, which is never stored). */
export interface NodeRecord {
  readonly id: string;
  readonly workspace: string;
  readonly path: string;
  /** Path of the parent node (`/` for top-level nodes). */
  readonly parentPath: string;
  readonly name: string;
  /** Number of path segments: 1 for `/a`, 2 for `/a/b`. */
  readonly depth: number;
  /** Position among siblings (natural order). */
  readonly position: number;
  /** Primary type, canonical prefix (`cms:page`). */
  readonly type: string;
  readonly mixins: readonly string[];
  /** Properties in stored order, without `jcr:primaryType`, `jcr:mixinTypes` and `jcr:uuid`. */
  readonly properties: readonly StoredProperty[];
}

export interface BlobSpool {
  /** sha256 of the content, hex; the value of the Binary property. */
  readonly hash: string;
  readonly size: number;
  /** Temporary file holding the decoded bytes. */
  readonly file: string;
}

export interface BlobInfo {
  readonly hash: string;
  readonly size: number;
}
