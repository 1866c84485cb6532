// Store layer: one property picked out of a node's property document (the JSON text of its
// StoredProperty[] as JSON.stringify wrote it; every writer of both backends writes it so, and
// versions copy it as it is) without parsing the rest. Building a query column reads
// every document of a workspace; parsing each whole costs twice as much as reading it (bench/RESULTS.md,
// issue 20), while the column needs one or a few of its properties.
import type { StoredProperty } from '../model/property-type.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

/** What to search for a property `name` in documents (computed once per column, not per document). */
export interface PropertyNeedle {
  /** `["name",`: in every document that has the property (a prefilter a database can apply). */
  readonly head: string;
  /** The document's first property: `[["name",` at offset 0. */
  readonly first: string;
  /** Any later property: `],["name",`. Values are scalars or flat arrays of scalars, so `],[` between
   * brackets occurs only between two properties (inside a string, its quotes would be escaped). */
  readonly later: string;
}

export function propertyNeedle(name: string): PropertyNeedle {
  const head = `[${JSON.stringify(name)},`;
  return { head, first: `[${head}`, later: `],${head}` };
}

/** The property of `needle` in `doc`, or undefined when the node has none. */
export function propertyIn(doc: string, needle: PropertyNeedle): StoredProperty | undefined {
  let start: number;
  if (doc.startsWith(needle.first)) start = 1;
  else {
    const at = doc.indexOf(needle.later);
    if (at < 0) return undefined;
    start = at + 2;
  }
  let depth = 0;
  for (let i = start; i < doc.length; i++) {
    const c = doc.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < doc.length; i++) {
        const d = doc.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN) depth++;
    else if (c === CLOSE && --depth === 0) return JSON.parse(doc.slice(start, i + 1)) as StoredProperty;
  }
  return undefined;
}
