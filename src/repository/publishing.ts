// Repository layer: publishing's vocabulary: the activation properties a publish maintains on working
// nodes, and one publish or unpublish request and its result (the rules are in publish-state.ts; the
// two states of a workspace are named in model/workspaces.ts).
import type { NodeWriteGuard } from './node-write.js';
import type { VersionInfo } from '../store/versions.js';

/** The activation properties every working node carries once publishing has touched it. */
export const ACTIVATION_STATUS = 'cms:activationStatus';
export const LAST_ACTIVATED = 'cms:lastActivated';
export const LAST_ACTIVATED_BY = 'cms:lastActivatedBy';
/** On the published copy's root: the version the publish recorded. */
export const LAST_ACTIVATED_VERSION = 'cms:lastActivatedVersion';

/**
 * Values of `cms:activationStatus` (a String, so a query filter can ask for each): published and
 * unchanged since, changed since its last publication, never published or unpublished (no property
 * at all means never published too). The original stores a Boolean and derives "modified" from
 * `lastModified > lastActivated`; its clients treat anything but "false" as activated and compare the
 * dates themselves, which these values keep true.
 */
export const STATUS = { published: 'true', modified: 'modified', unpublished: 'false' } as const;

export const ACTIVATION_PROPERTIES: ReadonlySet<string> = new Set([
  ACTIVATION_STATUS, LAST_ACTIVATED, LAST_ACTIVATED_BY, LAST_ACTIVATED_VERSION,
]);

/** One publish or unpublish, of a workspace's working content (logical names). */
export interface StateRequest {
  readonly workspace: string;
  readonly path: string;
  /**
   * Publish: with the whole subtree. Without it, the node and the descendants reached only through
   * nodes `takenAlong` accepts (a page's areas and components, not its subpages). Unpublish always
   * removes the whole published subtree.
   */
  readonly recursive: boolean;
  /** A node type a non-recursive publish takes along with its parent (repository/publish-rules.ts). */
  readonly takenAlong: (type: string) => boolean;
  /** Who publishes: `cms:lastActivatedBy`, the version's and the change events' `by`. */
  readonly by: string;
  /** Kept with the version a publish records. */
  readonly comment?: string;
  /** The instant (ISO 8601 with milliseconds and offset, as storedNow); now when absent. */
  readonly now?: string;
  /** The caller's permissions (readWrite on every node written), asked inside the transaction. */
  readonly guard?: NodeWriteGuard;
  /**
   * The schedule this request carries out: claimed (deleted) inside the same transaction. When it is
   * already gone (another instance ran it, or it was cancelled), nothing is written and the result
   * says `claimed: false`.
   */
  readonly schedule?: string;
}

export interface StateResult {
  /** False only for a schedule that was no longer there (see StateRequest.schedule). */
  readonly claimed: boolean;
  /** Nodes copied into (publish) or removed from (unpublish) the published state. */
  readonly nodes: number;
  /** The version a publish recorded. */
  readonly version?: VersionInfo;
}
