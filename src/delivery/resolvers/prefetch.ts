// Delivery layer: fetches every node that references of a response point to, before rendering:
// one batched look-up per workspace and reference level (never one per value), through the caller's
// session, so unreadable targets are simply absent (and render like missing ones).
import type { ScalarValue } from '../../model/property-type.js';
import type { Session } from '../../repository/session.js';
import type { NodeRecord } from '../../store/rows.js';
import { indexChildren, type ChildIndex } from '../render-node.js';
import { ruleFor, uuidOf, type ReferenceRule } from './reference-rules.js';
import { parseLinkMarkers } from './rich-text-link.js';

/** Most targets one response resolves; beyond it, values stay as stored (a reference bomb is cheap). */
export const MAX_REFERENCES_PER_RESPONSE = 2000;

export interface ResolvedTargets {
  /** Target nodes by workspace and uuid. */
  readonly nodes: Map<string, NodeRecord>;
  /** Children of fetched target nodes, by workspace. */
  readonly children: Map<string, ChildIndex>;
}

export function targetKey(workspace: string, uuid: string): string {
  return `${workspace}\u0000${uuid}`;
}

function valuesOf(value: ScalarValue | readonly ScalarValue[]): readonly ScalarValue[] {
  return Array.isArray(value) ? value : [value as ScalarValue];
}

interface Want {
  ids: Set<string>;
  depth: number;
}

export async function prefetchReferences(
  rows: readonly NodeRecord[],
  rules: readonly ReferenceRule[],
  session: Session,
  referenceDepth: number,
): Promise<ResolvedTargets> {
  const nodes = new Map<string, NodeRecord>();
  const childRows = new Map<string, NodeRecord[]>();
  const seenPaths = new Map<string, Set<string>>();
  let budget = MAX_REFERENCES_PER_RESPONSE;
  let frontier = rows;

  for (let level = 1; level <= Math.max(1, referenceDepth) && frontier.length > 0 && budget > 0; level++) {
    const wanted = new Map<string, Want>();
    const want = (ws: string, uuid: string, depth: number) => {
      if (nodes.has(targetKey(ws, uuid)) || budget <= 0) return;
      let w = wanted.get(ws);
      if (!w) wanted.set(ws, (w = { ids: new Set(), depth: 0 }));
      if (!w.ids.has(uuid)) {
        w.ids.add(uuid);
        budget--;
      }
      w.depth = Math.max(w.depth, depth);
    };
    for (const row of frontier) {
      for (const [name, , value] of row.properties) {
        const rule = ruleFor(rules, row.type, name);
        if (!rule) continue;
        const r = rule.resolver;
        for (const v of valuesOf(value)) {
          if (r.kind === 'jcrReferenceResolver') {
            const id = uuidOf(v);
            if (id) want(r.targetWorkspace, id, r.depthInReferencedNode);
          } else if (r.kind === 'assetReferenceResolver') {
            const id = uuidOf(v);
            if (id) want('dam', id, 1); // the asset and its `jcr:content` resource
          } else if (typeof v === 'string') {
            for (const m of parseLinkMarkers(v)) if (m.uuid) want(m.repository, m.uuid, m.repository === 'dam' ? 1 : 0);
          }
        }
      }
    }
    if (wanted.size === 0) break;
    const next: NodeRecord[] = [];
    for (const [ws, w] of wanted) {
      const found = await session.getNodesByIds(ws, [...w.ids]);
      for (const n of found) nodes.set(targetKey(ws, n.id), n);
      const sub = w.depth > 0 ? await session.getSubtrees(ws, found.map((n) => n.path), w.depth) : [];
      let seen = seenPaths.get(ws);
      if (!seen) seenPaths.set(ws, (seen = new Set()));
      let list = childRows.get(ws);
      if (!list) childRows.set(ws, (list = []));
      for (const r of sub) {
        if (seen.has(r.path)) continue;
        seen.add(r.path);
        list.push(r);
      }
      // One push per node: spreading a large subtree into one call exceeds the stack.
      for (const n of found) next.push(n);
      for (const n of sub) next.push(n);
    }
    frontier = next;
  }
  const children = new Map<string, ChildIndex>();
  for (const [ws, list] of childRows) children.set(ws, indexChildren(list));
  return { nodes, children };
}
