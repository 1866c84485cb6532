// Store layer: a row of `nodes` as both SQL backends read it (mixins and properties as JSON text), and
// the NodeRecord it stands for.
import type { NodeRecord } from './rows.js';

export interface NodeRow {
  id: string; workspace: string; path: string; parent_path: string; name: string;
  depth: number; position: number; type: string; mixins: string; props: string;
}

const EMPTY: readonly string[] = Object.freeze([]);

export function toRecord(r: NodeRow): NodeRecord {
  return {
    id: r.id, workspace: r.workspace, path: r.path, parentPath: r.parent_path, name: r.name,
    depth: r.depth, position: r.position, type: r.type,
    mixins: r.mixins === '[]' ? EMPTY : (JSON.parse(r.mixins) as string[]),
    properties: JSON.parse(r.props) as NodeRecord['properties'],
  };
}
