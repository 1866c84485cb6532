// Nodes API: a node in its repository form, as the original's Nodes API answers it (`name`, `type`,
// `path`, `identifier`, `properties: [{name, type, multiple, values}]`, `nodes`). Pure: no store, no HTTP.
import type { PropertyType, ScalarValue } from '../model/property-type.js';
import { isSystemName } from '../model/names.js';
import type { NodeRecord } from '../store/rows.js';

export interface RepositoryProperty {
  readonly name: string;
  readonly type: PropertyType;
  readonly multiple: boolean;
  readonly values: readonly string[];
}

export interface RepositoryNode {
  readonly name: string;
  readonly type: string;
  readonly path: string;
  readonly identifier: string;
  readonly properties: readonly RepositoryProperty[];
  /** Present when the answer's depth reached below this node (empty when it has no listed children). */
  readonly nodes?: readonly RepositoryNode[];
}

export interface RenderOptions {
  /** Output names of types and system properties (`namespace: mgnl | cms`). */
  readonly outName: (name: string) => string;
  /** With metadata: `jcr:primaryType`, `jcr:mixinTypes`, `jcr:uuid` and the `jcr:`/`cms:` properties. */
  readonly includeMetadata: boolean;
}

/** The identifier of a JCR workspace root, which the original answers for `/`. */
export { ROOT_IDENTIFIER } from '../model/paths.js';

/** A value's text as JCR's `getString()` gives it: a Double keeps its `.0`, as Java writes doubles. */
function valueText(type: PropertyType, v: ScalarValue): string {
  if (type === 'Double' && typeof v === 'number' && Number.isInteger(v)) return `${v}.0`;
  return typeof v === 'string' ? v : String(v);
}

function property(name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[]): RepositoryProperty {
  const multiple = Array.isArray(value);
  const list = multiple ? (value as readonly ScalarValue[]) : [value as ScalarValue];
  return { name, type, multiple, values: list.map((v) => valueText(type, v)) };
}

/**
 * The node's properties in stored order, system ones first when asked for. Binary values are left out:
 * their bytes belong to the asset routes, not to a JSON document.
 */
export function repositoryProperties(node: NodeRecord, o: RenderOptions): RepositoryProperty[] {
  const out: RepositoryProperty[] = [];
  if (o.includeMetadata) {
    out.push(property('jcr:primaryType', 'Name', o.outName(node.type)));
    if (node.mixins.length > 0) out.push(property('jcr:mixinTypes', 'Name', node.mixins.map(o.outName)));
    out.push(property('jcr:uuid', 'String', node.id));
  }
  for (const [name, type, value] of node.properties) {
    if (type === 'Binary' || (!o.includeMetadata && isSystemName(name))) continue;
    out.push(property(o.outName(name), type, value));
  }
  return out;
}

/** One node; `children` undefined below the answer's depth (no `nodes` key), else its listed children. */
export function repositoryNode(node: NodeRecord, o: RenderOptions, children?: readonly RepositoryNode[]): RepositoryNode {
  const head = { name: o.outName(node.name), type: o.outName(node.type), path: node.path, identifier: node.id, properties: repositoryProperties(node, o) };
  return children === undefined ? head : { ...head, nodes: children };
}
