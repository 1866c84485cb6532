// Notify layer: which webhook event a change event is, and what one webhook is sent of it (its filters
// applied). Pure: no I/O, so the sender, the CLI and tests share it.
import type { WebhookConfig, WebhookEvent } from '../config/notify-config.js';
import type { ChangeEvent, ChangedNode } from '../store/changes.js';
import { isPublishedWorkspace, logicalWorkspace } from '../model/workspaces.js';
import { toCanonicalName } from '../model/names.js';
import { globMatch } from '../query/glob.js';
import { changeKeys } from '../repository/dependencies.js';

export interface WebhookNode {
  readonly id: string;
  readonly path: string;
  readonly type: string;
}

/** The JSON body of a delivery (README: Webhooks). */
export interface WebhookPayload {
  /** `<webhook>-<sequence>`, the same on every attempt; also the `petal-delivery` header. */
  readonly id: string;
  readonly event: WebhookEvent;
  /** The workspace as clients name it (`website`, also for its published state). */
  readonly workspace: string;
  /** The nodes the filters let through; empty when the change was too large to list (`truncated`). */
  readonly nodes: readonly WebhookNode[];
  /** The cache keys (cache tags) the change hits: what a front end revalidates or a CDN purges. */
  readonly tags: readonly string[];
  readonly sequence: number;
  /** ISO 8601 instant of the change. */
  readonly at: string;
  readonly truncated?: true;
}

/** A webhook's filters, compiled once (sets, split patterns). */
export interface WebhookFilter {
  readonly name: string;
  readonly events: ReadonlySet<WebhookEvent> | null;
  readonly workspaces: ReadonlySet<string> | null;
  readonly paths: readonly PathPattern[] | null;
  readonly nodeTypes: ReadonlySet<string> | null;
}

interface PathPattern {
  readonly segments: readonly string[];
  /** A trailing `/*`: any node below `segments` (not the node itself). */
  readonly subtree: boolean;
}

export function compileFilter(config: WebhookConfig): WebhookFilter {
  return {
    name: config.name,
    events: config.events ? new Set(config.events) : null,
    workspaces: config.workspaces ? new Set(config.workspaces.map(logicalWorkspace)) : null,
    paths: config.paths ? config.paths.map(compilePath) : null,
    nodeTypes: config.nodeTypes ? new Set(config.nodeTypes.map(toCanonicalName)) : null,
  };
}

function compilePath(pattern: string): PathPattern {
  const segments = pattern.split('/').filter((s) => s !== '');
  const subtree = pattern.endsWith('/*');
  return { segments: subtree ? segments.slice(0, -1) : segments, subtree };
}

/** `*` matches within one segment (globMatch never sees a slash here). */
export function pathMatches(p: PathPattern, path: string): boolean {
  const parts = path.split('/').filter((s) => s !== '');
  if (p.subtree ? parts.length <= p.segments.length : parts.length !== p.segments.length) return false;
  for (let i = 0; i < p.segments.length; i++) if (!globMatch(p.segments[i]!, parts[i]!)) return false;
  return true;
}

/**
 * The webhook event of a change, or undefined when it is none. With publishing on, a publish or
 * unpublish records its version and the working nodes' activation marks as events of the working
 * workspace: only the event of `<ws>@published` is told. With publishing off, `petal publish` (a
 * version of the working workspace) is the publish.
 */
export function webhookEventOf(event: ChangeEvent, publishing: boolean): WebhookEvent | undefined {
  const published = isPublishedWorkspace(event.workspace);
  switch (event.kind) {
    case 'import': return 'imported';
    case 'nodes': return 'changed';
    case 'publish': return published ? 'published' : (!publishing && event.version !== undefined ? 'published' : undefined);
    case 'unpublish': return published ? 'unpublished' : undefined;
    default: {
      const never: never = event.kind;
      return never;
    }
  }
}

/** What `filter`'s webhook is sent of `event`; undefined when nothing of it matches (skipped). */
export function webhookPayload(filter: WebhookFilter, event: ChangeEvent, publishing: boolean): WebhookPayload | undefined {
  const kind = webhookEventOf(event, publishing);
  if (kind === undefined || (filter.events !== null && !filter.events.has(kind))) return undefined;
  const workspace = logicalWorkspace(event.workspace);
  if (filter.workspaces !== null && !filter.workspaces.has(workspace)) return undefined;
  const base = { id: `${filter.name}-${event.sequence}`, event: kind, workspace, sequence: event.sequence, at: event.at };
  // A change too large to list names no nodes: it may hit any of them.
  if (event.truncated) return { ...base, nodes: [], tags: [...changeKeys(event)], truncated: true };
  const keep = (n: ChangedNode): boolean => nodeMatches(filter, n);
  const kept = { created: event.created.filter(keep), changed: event.changed.filter(keep), moved: event.moved.filter(keep), removed: event.removed.filter(keep) };
  const nodes: WebhookNode[] = [];
  for (const list of [kept.created, kept.changed, kept.moved, kept.removed]) for (const n of list) nodes.push({ id: n.id, path: n.path, type: n.type });
  if (nodes.length === 0) return undefined;
  return { ...base, nodes, tags: [...changeKeys({ ...event, ...kept })] };
}

function nodeMatches(filter: WebhookFilter, n: ChangedNode): boolean {
  if (filter.nodeTypes !== null && !filter.nodeTypes.has(toCanonicalName(n.type))) return false;
  if (filter.paths === null) return true;
  // A move leaves one place and arrives in another: either may be what the receiver watches.
  return filter.paths.some((p) => pathMatches(p, n.path) || (n.from !== undefined && pathMatches(p, n.from)));
}
