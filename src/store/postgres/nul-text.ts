// PostgreSQL backend: text with U+0000, which PostgreSQL cannot store.
import { NodeWriteError } from '../node-write.js';
import type { StateRequest } from '../publishing.js';

/**
 * PostgreSQL text cannot hold U+0000, so no stored path, id or name contains it: a value with one (from
 * a hostile request) matches nothing, without sending it to the server, which would reject it.
 */
export function hasNul(value: string): boolean {
  return value.includes('\u0000');
}

export function withoutNul(values: readonly string[]): readonly string[] {
  return values.some(hasNul) ? values.filter((v) => !hasNul(v)) : values;
}

/** Index text without U+0000 (which PostgreSQL text cannot hold; the node's JSON keeps the exact value). */
export function storableText(value: string): string {
  return value.includes('\u0000') ? value.replaceAll('\u0000', '\ufffd') : value;
}

/**
 * A publish or unpublish PostgreSQL can run: no stored path or workspace contains U+0000 (so such a
 * node is missing, and a schedule id with one is no stored schedule's), and the name and comment it
 * writes have it replaced.
 */
export function stateRequest(r: StateRequest): StateRequest {
  if (hasNul(r.path) || hasNul(r.workspace)) {
    throw new NodeWriteError('missing', `No node at ${storableText(r.path)} in workspace ${storableText(r.workspace)}`);
  }
  return {
    ...r, by: storableText(r.by), ...(r.comment !== undefined ? { comment: storableText(r.comment) } : {}),
    ...(r.schedule !== undefined ? { schedule: storableText(r.schedule) } : {}),
  };
}
