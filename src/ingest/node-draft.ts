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

/** Canonical names of the `mgnl:` names read so far, up to this many: one string per name, not one per property. */
const CANONICAL_NAMES = 1024;
const canonicalNames = new Map<string, string>();

/** toCanonicalName of a name an export repeats on every node (types, `mgnl:created`): the same string each time. */
function canonical(name: string): string {
  if (!name.startsWith('mgnl:')) return name;
  let known = canonicalNames.get(name);
  if (known === undefined) {
    if (canonicalNames.size >= CANONICAL_NAMES) canonicalNames.clear();
    // Copied: the name read may be a slice of a whole chunk of the file, which the map would keep.
    known = (' ' + toCanonicalName(name)).slice(1);
    canonicalNames.set((' ' + name).slice(1), known);
  }
  return known;
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
      if (first !== undefined) draft.type = canonical(String(first));
      return;
    }
    case 'jcr:mixinTypes':
      draft.mixins = (Array.isArray(value) ? value : [value]).map((v) => canonical(String(v)));
      return;
    case 'jcr:uuid': {
      const first = Array.isArray(value) ? value[0] : value;
      if (first !== undefined) draft.id = String(first);
      return;
    }
    default:
      draft.properties.push([canonical(name), type, value]);
  }
}
