// Export layer: what both writers need of a node: its properties with the system ones first, mgnl: names.
import type { NodeRecord } from '../store/rows.js';
import type { PropertyType, ScalarValue } from '../model/property-type.js';
import { outputNameFor } from '../model/names.js';

/** Exports name types and system properties as the original's exports do (`mgnl:page`); import reads both. */
export const exportName = outputNameFor('mgnl');

export interface ExportProperty {
  readonly name: string;
  readonly type: PropertyType;
  /** An array exactly when the property is multi-value. */
  readonly value: ScalarValue | readonly ScalarValue[];
  /** `jcr:primaryType`, `jcr:mixinTypes`, `jcr:uuid`: the importers read them as text whatever their type. */
  readonly system?: true;
}

/**
 * `jcr:primaryType`, `jcr:mixinTypes` and `jcr:uuid` (which the store keeps outside the properties),
 * then the properties in stored order. Values are not renamed: a Name value is kept as it was imported.
 */
export function exportProperties(node: NodeRecord): ExportProperty[] {
  const out: ExportProperty[] = [{ name: 'jcr:primaryType', type: 'Name', value: exportName(node.type), system: true }];
  if (node.mixins.length > 0) out.push({ name: 'jcr:mixinTypes', type: 'Name', value: node.mixins.map(exportName), system: true });
  out.push({ name: 'jcr:uuid', type: 'String', value: node.id, system: true });
  for (const [name, type, value] of node.properties) out.push({ name: exportName(name), type, value });
  return out;
}

/** A value's text as the importers coerce it back (`coerceValue`): numbers by JavaScript's shortest form. */
export function valueText(value: ScalarValue): string {
  return typeof value === 'string' ? value : String(value);
}
