// Store layer: what the property index and the full-text index hold for one node, derived from its
// stored properties the same way by every backend (so filters and `q` behave identically).
import { decodeHTML } from 'entities';
import { isSystemName } from '../model/names.js';
import type { PropertyType, ScalarValue, StoredProperty } from '../model/property-type.js';
import type { ValueKind } from '../query/ast.js';

export interface IndexRow {
  readonly name: string;
  /** Position of the value in a multi-value property (0 for single values); ordering uses position 0. */
  readonly pos: number;
  readonly kind: ValueKind;
  /** Exact text form: compared by code point, matched by `like`. */
  readonly s: string;
  /** Case-folded text form: matched by `ilike`, used for case-insensitive ordering. */
  readonly f: string;
  /** Number, or date as epoch milliseconds; null for strings and booleans. */
  readonly n: number | null;
}

const KIND_OF: Readonly<Record<PropertyType, ValueKind | null>> = {
  String: 'string', Name: 'string', Path: 'string', URI: 'string', Reference: 'string', WeakReference: 'string',
  Long: 'number', Double: 'number', Decimal: 'number', Date: 'date', Boolean: 'boolean', Binary: null,
};

/** A value's exact text and number (or epoch milliseconds) as the index holds them; undefined: none. */
function indexed(kind: ValueKind, v: ScalarValue): readonly [s: string, n: number | null] | undefined {
  switch (kind) {
    case 'number': {
      const n = typeof v === 'number' ? v : Number(v);
      return Number.isFinite(n) ? [String(v), n] : undefined;
    }
    case 'date': {
      const s = String(v);
      const n = Date.parse(s);
      return Number.isNaN(n) ? undefined : [s, n];
    }
    case 'boolean':
      return [v === true || v === 'true' ? 'true' : 'false', null];
    default:
      return [String(v), null];
  }
}

function rowFor(name: string, pos: number, kind: ValueKind, v: ScalarValue): IndexRow | undefined {
  const x = indexed(kind, v);
  if (x === undefined) return undefined;
  const [s, n] = x;
  return { name, pos, kind, s, f: kind === 'string' ? s.toLowerCase() : s, n };
}

/**
 * Calls `visit` with each value of one property that has an index row (position, kind, exact text,
 * number): what a query column keeps, without the row objects and the case-folded text indexRows adds.
 */
export function forEachIndexValue(property: StoredProperty, visit: (pos: number, kind: ValueKind, s: string, n: number | null) => void): void {
  const kind = KIND_OF[property[1]];
  if (kind === null) return;
  const value = property[2];
  if (!Array.isArray(value)) {
    const x = indexed(kind, value as ScalarValue);
    if (x !== undefined) visit(0, kind, x[0], x[1]);
    return;
  }
  for (let i = 0; i < value.length; i++) {
    const x = indexed(kind, value[i] as ScalarValue);
    if (x !== undefined) visit(i, kind, x[0], x[1]);
  }
}

/** True when `v` has an index row of `kind` (rowFor's conditions, without building the row). */
function indexable(kind: ValueKind, v: ScalarValue): boolean {
  switch (kind) {
    case 'number': return Number.isFinite(typeof v === 'number' ? v : Number(v));
    case 'date': return !Number.isNaN(Date.parse(String(v)));
    default: return true;
  }
}

/**
 * Calls `visit` once per property that has index rows, with its value kind: the `prop_kinds` catalogue
 * (which kinds a filter value is converted to) without deriving every row. `skip` (name, kind) says the
 * caller has that pair already: its values are not looked at (a date's is parsed).
 */
export function forEachIndexedKind(
  properties: readonly StoredProperty[], visit: (name: string, kind: ValueKind) => void, skip?: (name: string, kind: ValueKind) => boolean,
): void {
  // Indexed loops: destructuring each tuple in a for…of showed as garbage in imports.
  for (let i = 0; i < properties.length; i++) {
    const property = properties[i]!;
    const kind = KIND_OF[property[1]];
    if (kind === null) continue;
    const name = property[0];
    if (skip?.(name, kind) === true) continue;
    const value = property[2];
    if (Array.isArray(value) ? value.some((v) => indexable(kind, v as ScalarValue)) : indexable(kind, value as ScalarValue)) visit(name, kind);
  }
}

export function indexRows(properties: readonly StoredProperty[]): IndexRow[] {
  const rows: IndexRow[] = [];
  for (const [name, type, value] of properties) {
    const kind = KIND_OF[type];
    if (kind === null) continue;
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        const r = rowFor(name, i, kind, v as ScalarValue);
        if (r) rows.push(r);
      });
    } else {
      const r = rowFor(name, 0, kind, value as ScalarValue);
      if (r) rows.push(r);
    }
  }
  return rows;
}

const TAG = /<[^>]*>/g;

/** Plain text of rich text: tags become spaces (so `<p>a</p><p>b</p>` stays two words), entities decoded. */
export function plainText(html: string): string {
  return html.includes('<') || html.includes('&') ? decodeHTML(html.replace(TAG, ' ')) : html;
}

/** The text `q` searches: the node's own non-system String properties, every language variant. */
export function fullTextOf(properties: readonly StoredProperty[]): string {
  const parts: string[] = [];
  for (let i = 0; i < properties.length; i++) {
    const [name, type, value] = properties[i]!;
    if (type !== 'String' || isSystemName(name)) continue;
    if (Array.isArray(value)) for (const v of value) parts.push(plainText(String(v)));
    else parts.push(plainText(String(value)));
  }
  return parts.join('\n');
}
