// Store layer: what a stored content version is, and how versions are named. Shared by both backends.

/**
 * One published version of a node. Versions belong to a node's path in its workspace (the address
 * delivery reads, and the key imports replace nodes by), not to its UUID: re-importing a node at the
 * same path keeps its history, whatever UUID the new import gives it.
 */
export interface VersionInfo {
  readonly workspace: string;
  readonly path: string;
  /** `1.0`, `1.1`, … (JCR's default naming): `1.` and the 0-based sequence number of the version. */
  readonly name: string;
  /** UUID the node had when it was published. */
  readonly nodeId: string;
  /** ISO 8601 instant (UTC) of the publish. */
  readonly created: string;
  /** Who published it, as given to `publish` (a user name, `cli`, …). */
  readonly createdBy: string;
  /** Nodes in the frozen copy (the node and all its descendants). */
  readonly nodes: number;
  /** The publisher's comment (commands API `comment`, `petal publish --comment`), when one was given. */
  readonly comment?: string;
}

/**
 * Where the frozen rows of a version come from: by default the workspace the version belongs to (its
 * working content, everything below the path). A publish freezes what it made public instead: the
 * published twin's rows, only those it copied (`ids`; all of the subtree when absent).
 */
export interface VersionSource {
  readonly workspace: string;
  readonly ids?: readonly string[];
}

/** The name of the version with 0-based sequence number `seq`: 0 → `1.0`, 1 → `1.1`, 10 → `1.10`. */
export function versionName(seq: number): string {
  return `1.${seq}`;
}

/** Well-formed version names: `<major>.<minor>`, digits only, at most 9 of each (so 2.0 is well-formed, merely unknown). */
export const VERSION_NAME = /^[0-9]{1,9}\.[0-9]{1,9}$/;

/** A row of the versions table, as both backends read it. */
export interface VersionRow {
  workspace: string; path: string; name: string; node_id: string; created_at: string | Date; created_by: string; nodes: number;
  comment: string | null;
}

export function toVersionInfo(r: VersionRow): VersionInfo {
  return {
    workspace: r.workspace, path: r.path, name: r.name, nodeId: r.node_id,
    created: typeof r.created_at === 'string' ? r.created_at : r.created_at.toISOString(), createdBy: r.created_by, nodes: r.nodes,
    ...(r.comment !== null ? { comment: r.comment } : {}),
  };
}
