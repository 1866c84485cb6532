// HTTP layer: the ETags of the Nodes and Properties APIs. A node's ETag is its identity and a hash of
// its own stored state, then a hash of the body; a write with If-Match compares the state part only,
// so an ETag read at any depth or with any parameters still guards the node.
import type { NodeRecord } from '../../store/rows.js';
import { etagOf } from '../etag.js';

/**
 * `"{identifier}.{state}.{representation}"`: the node's identity and a hash of its own stored state
 * (what a later write with If-Match compares, whatever the depth or parameters of the read), then a
 * hash of this body (what If-None-Match compares, so children and parameters count too).
 */
export function nodeEtag(node: NodeRecord, body: string): string {
  return `"${nodeState(node)}.${etagOf(body).slice(1, -1)}"`;
}

/** `{identifier}.{stateHash}`: the part of a node's ETag that If-Match compares. */
export function nodeState(node: NodeRecord): string {
  return `${node.id}.${etagOf(JSON.stringify([node.path, node.type, node.mixins, node.properties])).slice(1, -1)}`;
}

/** The `{identifier}.{state}` parts of an If-Match header's ETags (`*` kept as is); undefined without one. */
export function ifMatchStates(header: string | string[] | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  return text.split(',').map((t) => t.trim()).filter((t) => t !== '').map((t) => {
    if (t === '*') return t;
    const tag = t.replace(/^W\//, '').replace(/^"|"$/g, '');
    const cut = tag.lastIndexOf('.');
    return cut === -1 ? tag : tag.slice(0, cut);
  });
}

/** The store's If-Match condition on the node at `path` (any node for `*`); undefined without the header. */
export function ifMatchCondition(
  header: string | string[] | undefined, path: string,
): { readonly path: string; readonly matches: (node: NodeRecord) => boolean } | undefined {
  const states = ifMatchStates(header);
  if (states === undefined) return undefined;
  return { path, matches: (node) => states.includes('*') || states.includes(nodeState(node)) };
}
