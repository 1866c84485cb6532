// Delivery layer: the `metadata` object of a resolved asset, as the original's asset resolver writes
// it: technical fields from the resource node first, then the Dublin Core fields of the asset, every
// value a string (`"fileSize": "1115288"`), the multi-valued Dublin Core fields arrays, empty fields
// left out. `format` is the media type, as Dublin Core defines it.
import type { PropertyType, ScalarValue } from '../../model/property-type.js';
import type { NodeRecord } from '../../store/rows.js';
import { scalarAsString } from '../render-value.js';

interface Field {
  readonly key: string;
  readonly from: 'resource' | 'asset';
  /** Stored names, the first present wins. */
  readonly names: readonly string[];
  readonly many?: true;
}

const FIELDS: readonly Field[] = [
  { key: 'fileName', from: 'resource', names: ['fileName'] },
  { key: 'mimeType', from: 'resource', names: ['jcr:mimeType'] },
  { key: 'caption', from: 'asset', names: ['caption'] },
  { key: 'fileSize', from: 'resource', names: ['size'] },
  { key: 'height', from: 'resource', names: ['height'] },
  { key: 'width', from: 'resource', names: ['width'] },
  { key: 'title', from: 'asset', names: ['title'] },
  { key: 'format', from: 'resource', names: ['jcr:mimeType'] },
  { key: 'coverage', from: 'asset', names: ['coverage'] },
  { key: 'description', from: 'asset', names: ['description'] },
  { key: 'publisher', from: 'asset', names: ['publisher'] },
  { key: 'rights', from: 'asset', names: ['rights', 'copyright'] },
  { key: 'source', from: 'asset', names: ['source'] },
  { key: 'creator', from: 'asset', names: ['creator'], many: true },
  { key: 'contributor', from: 'asset', names: ['contributor'], many: true },
  { key: 'subject', from: 'asset', names: ['subject'], many: true },
  { key: 'language', from: 'asset', names: ['language'] },
  { key: 'date', from: 'asset', names: ['date'] },
  { key: 'created', from: 'asset', names: ['cms:created', 'jcr:created'] },
  { key: 'modified', from: 'asset', names: ['cms:lastModified', 'jcr:lastModified'] },
];

type Stored = readonly [name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[]];

function find(node: NodeRecord | undefined, names: readonly string[]): Stored | undefined {
  if (node === undefined) return undefined;
  for (const name of names) {
    const p = node.properties.find((x) => x[0] === name);
    if (p !== undefined) return p;
  }
  return undefined;
}

/** The JSON text of the metadata object (without braces' surroundings: `{...}` whole). */
export function renderAssetMetadata(asset: NodeRecord, resource: NodeRecord | undefined): string {
  let out = '';
  for (const f of FIELDS) {
    let p = find(f.from === 'resource' ? resource : asset, f.names);
    // An asset stored with its own Dublin Core format and no resource type keeps it.
    if (p === undefined && f.key === 'format') p = find(asset, ['format']);
    if (p === undefined || p[1] === 'Binary') continue;
    const values = Array.isArray(p[2]) ? (p[2] as readonly ScalarValue[]) : [p[2] as ScalarValue];
    const texts = values.map(scalarAsString).filter((t) => t !== '');
    if (texts.length === 0) continue;
    const text = f.many === true || Array.isArray(p[2]) ? JSON.stringify(texts) : JSON.stringify(texts[0]);
    out += (out === '' ? '' : ',') + JSON.stringify(f.key) + ':' + text;
  }
  return '{' + out + '}';
}
