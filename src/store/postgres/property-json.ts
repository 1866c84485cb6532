// PostgreSQL backend: one property of a node, taken from the node's properties JSON (`nodes.props`)
// without parsing the rest of it. The query index's columns are built this way (column-source.ts):
// parsing each whole document (13 properties in the bench data) took about as long again, and
// PostgreSQL's own json_array_elements about twice as long, on the server's single core per query.
//
// `nodes.props` is always the text JSON.stringify wrote (batch-rows.ts; versions copy it as it is):
// an array of `[name, type, value]` triples, no white space, every string escaped the same way. So
// the triple of a property starts with the text `["<name as JSON>",`, and that text starts a triple
// only right after the array's opening bracket or after `],` (the end of the previous triple). It
// cannot start inside a string (a bare `"` never occurs in one), and where else it occurs it is a
// multi-value property's values whose first value is the same text, which follows `"<type>",`.
import type { StoredProperty } from '../../repository/property-type.js';

/** What precedes, in the JSON text, the triple of the property `name`. */
export function tripleStart(name: string): string {
  return `[${JSON.stringify(name)},`;
}

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The triple of the property whose `tripleStart` is `start` in the node's properties JSON, if it has it. */
export function propertyInJson(json: string, start: string): StoredProperty | undefined {
  for (let i = json.indexOf(start); i >= 0; i = json.indexOf(start, i + 1)) {
    if (i !== 1 && !(json.charCodeAt(i - 1) === COMMA && json.charCodeAt(i - 2) === CLOSE)) continue;
    const end = closingBracket(json, i);
    return end < 0 ? undefined : (JSON.parse(json.slice(i, end + 1)) as StoredProperty);
  }
  return undefined;
}

/** Index of the `]` that closes the array opened at `i`; -1 if it is not closed. */
function closingBracket(json: string, i: number): number {
  let depth = 0;
  let inString = false;
  for (let j = i; j < json.length; j++) {
    const c = json.charCodeAt(j);
    if (inString) {
      if (c === BACKSLASH) j++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN) depth++;
    else if (c === CLOSE && --depth === 0) return j;
  }
  return -1;
}
