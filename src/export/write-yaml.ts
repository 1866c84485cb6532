// Export layer: streams a subtree as a YAML bootstrap export (the format `petal import` and the original CMS read).
import type { BlobSource } from '../assets/read-binary.js';
import type { PropertyType, ScalarValue } from '../model/property-type.js';
import type { TreeEvent } from './walk-tree.js';
import { exportName, exportProperties, valueText, type ExportProperty } from './export-values.js';
import { base64Blob } from './base64-blob.js';
import { ExportError } from './export-error.js';

/**
 * Characters a double-quoted YAML scalar cannot hold as themselves: the quote and backslash, line breaks
 * (they would fold), other non-printable characters, and unpaired surrogates. All become `\uXXXX`.
 */
const UNPRINTABLE = /["\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r' };
const PLAIN_LONG = /^-?[0-9]+$/;

/** Any text as a double-quoted YAML scalar that reads back as exactly that text. */
export function quoteYaml(text: string): string {
  return `"${text.replace(UNPRINTABLE, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/**
 * Tags of the types the importer would not infer from the value's form. Strings are quoted (never
 * inferred), Booleans and Dates are plain as in the original's exports, Longs plain when they look like one.
 */
const TAGS: Readonly<Partial<Record<PropertyType, string>>> = {
  Long: '!long', Double: '!double', Decimal: '!decimal', Reference: '!reference', WeakReference: '!weakreference',
  Name: '!name', Path: '!path', URI: '!uri',
};

/** One non-binary value as YAML: a plain or quoted scalar, tagged when its type could not be told. */
export function yamlScalar(type: PropertyType, value: ScalarValue): string {
  const text = valueText(value);
  if (type === 'String') return quoteYaml(text);
  if (type === 'Boolean' || type === 'Date') return text;
  if (type === 'Long' && PLAIN_LONG.test(text)) return text;
  return `${TAGS[type] ?? `!${type.toLowerCase()}`} ${quoteYaml(text)}`;
}

/** The YAML text of the tree (one root node), piece by piece; binaries in base64 pieces of one stored chunk each. */
export async function* writeYaml(events: AsyncIterable<TreeEvent>, o: { readonly blobs: BlobSource }): AsyncGenerator<string> {
  let depth = 0;
  /** The property names of each open node: a child of the same name would be a duplicate mapping key. */
  const open: Set<string>[] = [];
  for await (const event of events) {
    if (event.kind === 'close') {
      depth--;
      open.pop();
      continue;
    }
    const name = exportName(event.node.name);
    if (open.at(-1)?.has(name) === true) {
      throw new ExportError(`${event.node.path}: a property and a child node are both named ${JSON.stringify(name)}, `
        + 'which YAML cannot hold (two equal keys); export as xml');
    }
    yield `${indent(depth)}${quoteYaml(name)}:\n`;
    depth++;
    const properties = exportProperties(event.node);
    open.push(new Set(properties.map((p) => p.name)));
    for (const p of properties) {
      // Plain text, as the original's exports write them (`jcr:primaryType: mgnl:page`).
      yield* writeProperty(p.system ? { ...p, type: 'String' } : p, depth, o.blobs);
    }
  }
}

async function* writeProperty(p: ExportProperty, depth: number, blobs: BlobSource): AsyncGenerator<string> {
  const key = `${indent(depth)}${quoteYaml(p.name)}:`;
  if (!Array.isArray(p.value)) {
    yield key;
    yield* writeValue(p.type, p.value as ScalarValue, blobs);
    yield '\n';
    return;
  }
  const values = p.value as readonly ScalarValue[];
  if (values.length === 0) {
    yield `${key} []\n`;
    return;
  }
  yield `${key}\n`;
  for (const v of values) {
    yield `${indent(depth + 1)}-`;
    yield* writeValue(p.type, v, blobs);
    yield '\n';
  }
}

async function* writeValue(type: PropertyType, value: ScalarValue, blobs: BlobSource): AsyncGenerator<string> {
  if (type !== 'Binary') {
    yield ` ${yamlScalar(type, value)}`;
    return;
  }
  yield ' !!binary "';
  yield* base64Blob(blobs, String(value));
  yield '"';
}

function indent(depth: number): string {
  return '  '.repeat(depth);
}
