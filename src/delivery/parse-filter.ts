// Delivery layer: reads one filter parameter (`property[operator]=value|value`) into a FilterSpec.
// Names and values stay data: nothing here is ever spliced into SQL.
import { PetalError } from '../errors.js';
import { toCanonicalName } from '../model/names.js';
import { normalizePath } from '../model/paths.js';
import type { FilterSpec, RawOperator, Target } from '../query/ast.js';

export const FILTER_OPERATORS: ReadonlySet<string> = new Set(['eq', 'ne', 'gt', 'lt', 'lte', 'gte', 'in', 'not-in', 'like', 'ilike', 'null']);
const KEY = /^([^[\]]+)(?:\[([^[\]]*)\])?$/;
const MAX_ALTERNATIVES = 100;
const MAX_VALUE_LENGTH = 4096;

export function parseFilter(param: string, rawValues: readonly string[]): FilterSpec {
  const m = KEY.exec(param);
  if (!m) throw new PetalError('invalidQuery', `${param}: a filter is written property[operator]=value`);
  const name = m[1]!.trim();
  const opText = (m[2] ?? 'eq').trim().toLowerCase();
  if (!FILTER_OPERATORS.has(opText)) {
    throw new PetalError('invalidQuery', `${param}: unknown operator "${m[2]}" (use eq, ne, gt, lt, gte, lte, in, not-in, like, ilike or null)`);
  }
  const op = opText as RawOperator;
  // A repeated parameter is one more alternative, as `|` is.
  const values = rawValues.flatMap((v) => (op === 'null' ? [v] : v.split('|')));
  if (values.length > MAX_ALTERNATIVES) throw new PetalError('invalidQuery', `${param}: at most ${MAX_ALTERNATIVES} alternatives`);
  for (const v of values) {
    if (v.length > MAX_VALUE_LENGTH) throw new PetalError('invalidQuery', `${param}: value longer than ${MAX_VALUE_LENGTH} characters`);
  }

  if (name === '@ancestor') {
    if (op !== 'eq') throw new PetalError('invalidQuery', `${param}: @ancestor takes no operator`);
    const paths = values.map((v) => {
      const p = normalizePath(v);
      if (p === undefined || !v.startsWith('/')) throw new PetalError('invalidQuery', `${param}: "${v}" is not an absolute path`);
      return p;
    });
    return { kind: 'ancestor', param, paths };
  }
  const target = targetOf(param, name);
  if ((target.kind === 'path' || target.kind === 'uuid' || target.kind === 'type') && op !== 'eq' && op !== 'ne') {
    const label = target.kind === 'path' ? '@path' : target.kind === 'uuid' ? '@jcr:uuid' : 'jcr:primaryType';
    throw new PetalError('invalidQuery', `${param}: ${label} allows only eq and ne`);
  }
  if (target.kind === 'name' && op === 'null') throw new PetalError('invalidQuery', `${param}: every node has a name`);
  if (target.kind === 'path') {
    return { kind: 'filter', param, target, op, values: values.map((v) => {
      const p = normalizePath(v);
      if (p === undefined || !v.startsWith('/')) throw new PetalError('invalidQuery', `${param}: "${v}" is not an absolute path`);
      return p;
    }) };
  }
  if (target.kind === 'type') return { kind: 'filter', param, target, op, values: values.map(toCanonicalName) };
  return { kind: 'filter', param, target, op, values };
}

function targetOf(param: string, name: string): Target {
  switch (name) {
    case '@name': return { kind: 'name' };
    case '@path': return { kind: 'path' };
    case '@jcr:uuid': case '@id': case 'jcr:uuid': return { kind: 'uuid' };
    case 'jcr:primaryType': return { kind: 'type' };
    default:
      if (name.startsWith('@')) {
        throw new PetalError('invalidQuery', `${param}: unknown special filter ${name} (use @name, @path, @jcr:uuid or @ancestor)`);
      }
      if (name.length > 256) throw new PetalError('invalidQuery', `${param}: property name too long`);
      return { kind: 'property', name: toCanonicalName(name) };
  }
}
