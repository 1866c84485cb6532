// Ingest layer: builds NodeDrafts, turning the JCR system properties of exports into draft fields.
import type { NodeDraft } from '../repository/import-document.js';
import type { PropertyType, ScalarValue } from '../model/property-type.js';
import { reservedPrefixProblem, toCanonicalName } from '../model/names.js';
import { isValidName } from '../model/paths.js';

/** Characters JCR forbids in names besides `/` (the Nodes API refuses them too): never in a real export. */
const JCR_RESERVED = /[[\]*|]/;

function nameProblem(name: string, what: string): string | undefined {
  if (isValidName(name) && !JCR_RESERVED.test(name)) return undefined;
  return `invalid ${what} name ${JSON.stringify(name)} (empty, ".", "..", or holding "/", "[", "]", "*", "|" or control characters)`;
}

/** Why an export's node name cannot be imported (the parser fails with its file and line), or undefined. */
export function nodeNameProblem(name: string): string | undefined {
  return nameProblem(name, 'node');
}

/** Why an export's property name cannot be imported, or undefined (a reserved prefix in another case included). */
export function propertyNameProblem(name: string): string | undefined {
  return nameProblem(name, 'property') ?? reservedPrefixProblem(name);
}

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
  switch (name) {
    case 'jcr:primaryType': {
      const first = Array.isArray(value) ? value[0] : value;
      if (first !== undefined) draft.type = toCanonicalName(String(first));
      return;
    }
    case 'jcr:mixinTypes':
      draft.mixins = (Array.isArray(value) ? value : [value]).map((v) => toCanonicalName(String(v)));
      return;
    case 'jcr:uuid': {
      const first = Array.isArray(value) ? value[0] : value;
      if (first !== undefined) draft.id = String(first);
      return;
    }
    default:
      draft.properties.push([toCanonicalName(name), type, value]);
  }
}
