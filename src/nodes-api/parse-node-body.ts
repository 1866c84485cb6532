// Nodes API: a write's JSON body (a node in repository form: `name`, `type`, `path`, `identifier`,
// `properties: [{name, type, multiple, values}]`, `nodes: [...]`) validated and typed as imports type
// values, before anything is written. Every error is a 400 (413 for the bounds) naming the field, such
// as `nodes[0].name`, and a property by its name and place: `price (nodes[0].properties[2].values[0])`.
// Pure: no store, no HTTP.
import { PetalError } from '../errors.js';
import { reservedPrefixProblem, toCanonicalName } from '../model/names.js';
import { joinPath, isValidName } from '../model/paths.js';
import { coerceValue, parsePropertyType, type PropertyType, type ScalarValue, type StoredProperty } from '../model/property-type.js';
import type { NodeInput } from '../repository/node-write.js';

/** The bounds of one write (documented in README, "Writing content"). */
export const WRITE_LIMITS = {
  /** Request body, in bytes. */
  maxBodyBytes: 8 * 1024 * 1024,
  /** Values and keys of the body's JSON: 1,000 nodes of 40 one-value properties hold about 410,000. */
  maxJsonItems: 1_000_000,
  /** Nodes in one body (the node and all its `nodes`). */
  maxNodes: 1_000,
  /** Levels of `nodes` below the body's node. */
  maxDepth: 20,
  /** Properties of one node. */
  maxProperties: 1_000,
  /** Values of one property. */
  maxValues: 1_000,
  /** Characters of one value (and of a name or identifier: 1,000). */
  maxValueChars: 1024 * 1024,
  maxNameChars: 1_000,
} as const;

/** Characters JCR forbids in names besides `/` (and which would break path patterns and queries). */
const RESERVED = /[[\]*|]/;
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Decimal text as imports accept it. */
const NUMBER_TEXT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

const invalid = (field: string, message: string) => new PetalError('invalidField', `${field}: ${message}`);

/** A node or property name: the repository's rule plus JCR's reserved characters. */
export function checkName(raw: unknown, field: string): string {
  if (typeof raw !== 'string') throw invalid(field, 'a name is a string');
  if (raw.length > WRITE_LIMITS.maxNameChars) throw invalid(field, `a name has at most ${WRITE_LIMITS.maxNameChars} characters`);
  if (!isValidName(raw) || RESERVED.test(raw) || raw.trim() !== raw) {
    throw invalid(field, `${JSON.stringify(raw)} is not a valid name (empty, ".", "..", "/", "[", "]", "*", "|", control characters or surrounding spaces)`);
  }
  return toCanonicalName(raw);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optionalString(raw: unknown, field: string): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' || raw === '' || raw.length > WRITE_LIMITS.maxNameChars || CONTROL.test(raw)) {
    throw invalid(field, `a non-empty string of at most ${WRITE_LIMITS.maxNameChars} characters without control characters`);
  }
  return raw;
}

function typedValue(type: PropertyType, raw: unknown, field: string): ScalarValue {
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    throw invalid(field, 'a value is a string (or a JSON number or boolean)');
  }
  const text = String(raw);
  if (text.length > WRITE_LIMITS.maxValueChars) throw new PetalError('payloadTooLarge', `${field}: a value has at most ${WRITE_LIMITS.maxValueChars} characters`);
  if (type === 'Decimal' && !NUMBER_TEXT.test(text.trim())) throw new PetalError('invalidValueFormat', `${field}: not a Decimal value: ${JSON.stringify(text)}`);
  if ((type === 'Name' || type === 'Reference' || type === 'WeakReference') && (text === '' || CONTROL.test(text))) {
    throw new PetalError('invalidValueFormat', `${field}: not a ${type} value: ${JSON.stringify(text)}`);
  }
  try {
    return coerceValue(type, text);
  } catch (err) {
    throw new PetalError('invalidValueFormat', `${field}: ${(err as Error).message}`);
  }
}

interface Counter { nodes: number }

/** Names a field of a property (`values` with an index for one value), as the request spells it. */
export type FieldNamer = (key: 'name' | 'type' | 'multiple' | 'values', index?: number) => string;

/**
 * One property `{name, type, multiple, values}`, typed; `jcr:` system ones are left to the node to take.
 * A reserved prefix in another case (`Mgnl:`, `JCR:`) is refused: it would be stored as an ordinary
 * property looking like a system one.
 */
export function parseProperty(raw: unknown, at: FieldNamer, label = 'a property'): StoredProperty {
  if (!isObject(raw)) throw invalid(label, 'a property is an object {name, type, multiple, values}');
  const name = checkName(raw.name, at('name'));
  const reserved = reservedPrefixProblem(name);
  if (reserved !== undefined) throw invalid(at('name'), reserved);
  // From here on the property has a name, which an editor recognises sooner than a position.
  const outer = at;
  at = (k, j) => `${name} (${outer(k, j)})`;
  if (typeof raw.type !== 'string') throw invalid(at('type'), 'a property type (String, Long, Double, Decimal, Boolean, Date, Reference, WeakReference, Name, Path, URI)');
  const type = parsePropertyType(raw.type);
  if (type === undefined) throw invalid(at('type'), `unknown property type ${JSON.stringify(raw.type)}`);
  if (type === 'Binary') throw invalid(at('type'), 'Binary values are written by import, not by the Nodes API');
  if (raw.multiple !== undefined && typeof raw.multiple !== 'boolean') throw invalid(at('multiple'), 'true or false');
  if (!Array.isArray(raw.values)) throw invalid(at('values'), 'an array of values');
  if (raw.values.length > WRITE_LIMITS.maxValues) throw new PetalError('payloadTooLarge', `${at('values')}: at most ${WRITE_LIMITS.maxValues} values`);
  const multiple = raw.multiple === true;
  if (!multiple && raw.values.length !== 1) throw invalid(at('values'), `a property with "multiple": false has exactly one value, not ${raw.values.length}`);
  const values = raw.values.map((v, i) => typedValue(type, v, at('values', i)));
  return [name, type, multiple ? values : values[0]!];
}

function parseNode(raw: unknown, field: string, path: string | undefined, depth: number, count: Counter, ids: Set<string>): NodeInput {
  const label = field === '' ? 'The body' : field.slice(0, -1);
  if (!isObject(raw)) throw invalid(label, 'a node is a JSON object in repository form {name, type, properties, nodes}');
  if (++count.nodes > WRITE_LIMITS.maxNodes) throw new PetalError('payloadTooLarge', `${label}: a write holds at most ${WRITE_LIMITS.maxNodes} nodes`);
  if (depth > WRITE_LIMITS.maxDepth) throw new PetalError('payloadTooLarge', `${label}: nodes nest at most ${WRITE_LIMITS.maxDepth} levels`);
  const name = checkName(raw.name, `${field}name`);
  const expected = path;
  if (raw.path !== undefined && raw.path !== expected) {
    throw invalid(`${field}path`, `${JSON.stringify(raw.path)} is not where this node is written (${expected})`);
  }
  let type = optionalString(raw.type, `${field}type`);
  let mixins: string[] | undefined;
  let id = optionalString(raw.identifier, `${field}identifier`);
  const rawProperties = raw.properties ?? [];
  if (!Array.isArray(rawProperties)) throw invalid(`${field}properties`, 'an array of properties');
  if (rawProperties.length > WRITE_LIMITS.maxProperties) throw new PetalError('payloadTooLarge', `${field}properties: at most ${WRITE_LIMITS.maxProperties} properties`);
  const properties: StoredProperty[] = [];
  const seen = new Set<string>();
  rawProperties.forEach((p, i) => {
    const f = `${field}properties[${i}]`;
    const prop = parseProperty(p, (k, j) => (j === undefined ? `${f}.${k}` : `${f}.${k}[${j}]`), f);
    if (seen.has(prop[0])) throw invalid(`${f}.name`, `property ${JSON.stringify(prop[0])} is given twice`);
    seen.add(prop[0]);
    const values = Array.isArray(prop[2]) ? prop[2] : [prop[2]];
    // What a GET with includeMetadata answers: taken as the node's type, mixins and identifier.
    if (prop[0] === 'jcr:primaryType') {
      const given = toCanonicalName(String(values[0]));
      if (type !== undefined && toCanonicalName(type) !== given) throw invalid(`jcr:primaryType (${f}.values[0])`, `disagrees with "type" (${type})`);
      type = given;
    } else if (prop[0] === 'jcr:mixinTypes') mixins = values.map((v) => toCanonicalName(String(v)));
    else if (prop[0] === 'jcr:uuid') {
      if (id !== undefined && id !== String(values[0])) throw invalid(`jcr:uuid (${f}.values[0])`, `disagrees with "identifier" (${id})`);
      id = optionalString(values[0], `jcr:uuid (${f}.values[0])`);
    } else properties.push(prop);
  });
  if (id !== undefined) {
    if (ids.has(id)) throw invalid(`${field}identifier`, `${id} is given to two nodes of the body`);
    ids.add(id);
  }
  const rawNodes = raw.nodes ?? [];
  if (!Array.isArray(rawNodes)) throw invalid(`${field}nodes`, 'an array of nodes');
  const names = new Set<string>();
  const children = rawNodes.map((n, i) => {
    const f = `${field}nodes[${i}].`;
    const childName = isObject(n) ? checkName(n.name, `${f}name`) : undefined;
    const child = parseNode(n, f, expected === undefined || childName === undefined ? undefined : joinPath(expected, childName), depth + 1, count, ids);
    if (names.has(child.name)) throw invalid(`${f}name`, `two child nodes are named ${JSON.stringify(child.name)}`);
    names.add(child.name);
    return child;
  });
  return {
    name, properties, children, field,
    ...(type !== undefined ? { type: toCanonicalName(type) } : {}),
    ...(mixins !== undefined ? { mixins } : {}),
    ...(id !== undefined ? { id } : {}),
  };
}

/**
 * The body of a PUT (a new child of `parentPath`) or a POST (the node at `nodePath`), validated.
 * A `path` in the body must be where the node is written (or be left out).
 */
export function parseNodeBody(body: unknown, where: { readonly parentPath: string } | { readonly nodePath: string }): NodeInput {
  if (!isObject(body)) throw new PetalError('badRequest', 'The body must be a JSON object: a node in repository form {name, type, properties, nodes}');
  if ('nodePath' in where) {
    // A POST may leave out the name: it is the node's own (a different one is refused: rename with moveTo).
    const named = body.name === undefined ? { ...body, name: where.nodePath.slice(where.nodePath.lastIndexOf('/') + 1) } : body;
    return parseNode(named, '', where.nodePath, 0, { nodes: 0 }, new Set());
  }
  const path = typeof body.name === 'string' ? joinPath(where.parentPath, toCanonicalName(body.name)) : undefined;
  return parseNode(body, '', path, 0, { nodes: 0 }, new Set());
}
