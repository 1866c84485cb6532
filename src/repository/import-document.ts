// Repository layer: what an import writes: the documents the parsers (ingest/) make of export files,
// the caller's options and guard, and the result. The rules that write them are in write-import.ts.
import type { StoredProperty } from '../model/property-type.js';
import type { BlobSpool } from '../store/rows.js';
import type { BootstrapRecords } from '../store/bootstrap-files.js';

/** A node to write, as produced by the importers (and later by the write API). */
export interface NodeDraft {
  name: string;
  /** UUID from the source; a fresh one is generated when absent. */
  id?: string;
  /** Primary type; `cms:contentNode` when absent (as for nodes without `jcr:primaryType` in exports). */
  type?: string;
  mixins: string[];
  properties: StoredProperty[];
  children: NodeDraft[];
  /** 1-based line in the source file, for error messages. */
  line?: number;
}

/**
 * One node of a streamed document, in document order (a node before its descendants). Its draft has no
 * children: they follow as entries of the next depth.
 */
export interface NodeEntry {
  /** 0 for a root of the document, 1 for a root's child, and so on. */
  readonly depth: number;
  readonly draft: NodeDraft;
}

/**
 * A source file read while it is written: its nodes come in batches, so that an import holds a bounded
 * part of a file in memory whatever its size. Read once; its blobs are known when the nodes are.
 */
export interface StreamedDocument {
  readonly source: string;
  readonly workspace: string;
  readonly parentPath: string;
  readonly entries: AsyncIterable<readonly NodeEntry[]>;
  /** The binaries the Binary values name (value = hash): complete once `entries` has ended. */
  blobs(): readonly BlobSpool[];
}

/** One source file's content, ready to be written in one transaction with the others of an import. */
export interface ImportDocument {
  /** File the content came from (for messages). */
  readonly source: string;
  readonly workspace: string;
  /** Where the roots go (`/travel`); missing ancestors are created as `cms:folder`. */
  readonly parentPath: string;
  readonly roots: readonly NodeDraft[];
  /** Binaries referenced by Binary properties (value = hash), spooled to temporary files by the parser. */
  readonly blobs: readonly BlobSpool[];
}

export type UuidCollisionPolicy = 'new' | 'replace' | 'fail';

export interface ImportOptions {
  readonly onUuidCollision: UuidCollisionPolicy;
  /** Who imports, recorded on the change events (HTTP imports: the caller's user name). */
  readonly by?: string;
  /**
   * Asked inside the transaction before the import creates a missing parent folder (`create`) or
   * removes a subtree (`remove`: a replaced root, or the holder of a UUID under `replace`); it throws
   * to refuse, and the whole import rolls back.
   */
  readonly guard?: ImportGuard;
  /**
   * The start-time import's record of its files, written in the import's transaction (bootstrap-files.ts);
   * a function is asked once every document is read (a streamed import records what it read).
   */
  readonly bootstrap?: BootstrapRecords | (() => BootstrapRecords | undefined);
}

export interface ImportGuard {
  create(workspace: string, path: string): void;
  /** `uuid`: the node at `path` holds that UUID of the import (`replace`), rather than being a replaced root. */
  remove(workspace: string, path: string, uuid?: string): void;
}

export interface ImportResult {
  /** Nodes written (roots and descendants; created folders included). */
  readonly nodes: number;
  readonly warnings: readonly string[];
}
