// Ingest layer: builds NodeDrafts, turning the JCR system properties of exports into draft fields.
import type { NodeDraft } from '../store/rows.js';
import type { PropertyType, ScalarValue } from '../repository/property-type.js';
import { toCanonicalName } from '../repository/names.js';

export function newDraft(name: string, line: number | undefined): NodeDraft {
  const draft: NodeDraft = { name: toCanonicalName(name), mixins: [], properties: [], children: [] };
  if (line !== undefined) draft.line = line;
  return draft;
}

/**
 * Adds one property as read from an export. `jcr:primaryType`, `jcr:mixinTypes` and `jcr:uuid` are not
 * stored as properties (see NodeRecord) but become the draft's type, mixins and id.
 */
export function addProperty(
  draft: NodeDraft, name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[],
): void {
  const values = Array.isArray(value) ? value : [value];
  switch (name) {
    case 'jcr:primaryType':
      if (values.length > 0) draft.type = toCanonicalName(String(values[0]));
      return;
    case 'jcr:mixinTypes':
      draft.mixins = values.map((v) => toCanonicalName(String(v)));
      return;
    case 'jcr:uuid':
      if (values.length > 0) draft.id = String(values[0]);
      return;
    default:
      draft.properties.push([toCanonicalName(name), type, value]);
  }
}
