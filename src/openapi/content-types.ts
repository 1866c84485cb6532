// OpenAPI: content types of the light modules (`<module>/contentTypes/*.yaml`, the original's format:
// `datasource.workspace` and a `model` of typed properties, as a list or a map by name) as JSON schemas.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import type { Json } from './document-types.js';

export interface ContentType {
  /** The file name without `.yaml`, as the original names a content type. */
  readonly name: string;
  readonly module: string;
  readonly workspace: string;
  readonly properties: readonly ContentTypeProperty[];
}

export interface ContentTypeProperty {
  readonly name: string;
  /** As written (`String` when absent): String, Boolean, Long, Double, Decimal, Date, asset, richText, or a model's name. */
  readonly type: string;
  readonly multiple: boolean;
  readonly label?: string;
}

type Raw = Readonly<Record<string, unknown>>;
const isMap = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
// Content type files are small; a bigger one is not a content type.
const MAX_FILE_BYTES = 1 << 20;

function propertiesOf(raw: unknown): ContentTypeProperty[] {
  const entries: [string, unknown][] = Array.isArray(raw)
    ? raw.filter(isMap).map((p) => [String(p.name ?? ''), p])
    : isMap(raw) ? Object.entries(raw) : [];
  const out: ContentTypeProperty[] = [];
  for (const [name, p] of entries) {
    if (name === '') continue;
    const m = isMap(p) ? p : {};
    out.push({
      name, type: typeof m.type === 'string' ? m.type : 'String', multiple: m.multiple === true,
      ...(typeof m.label === 'string' ? { label: m.label } : {}),
    });
  }
  return out;
}

/** One file; undefined when it is no content type Petal can describe (no workspace, no model). */
export function parseContentType(text: string, name: string, module: string): ContentType | undefined {
  let raw: unknown;
  try {
    raw = parse(text, { version: '1.1', maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  if (!isMap(raw) || !isMap(raw.datasource) || !isMap(raw.model)) return undefined;
  const workspace = raw.datasource.workspace;
  if (typeof workspace !== 'string' || workspace === '') return undefined;
  return { name, module, workspace, properties: propertiesOf(raw.model.properties) };
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Every readable content type of the modules in these light-modules folders; others are skipped. */
export function loadContentTypes(moduleRoots: readonly string[]): ContentType[] {
  const out: ContentType[] = [];
  for (const root of moduleRoots) {
    for (const module of entries(root)) {
      const dir = join(root, module, 'contentTypes');
      for (const file of entries(dir).filter((f) => f.endsWith('.yaml'))) {
        try {
          const text = readFileSync(join(dir, file));
          if (text.length > MAX_FILE_BYTES) continue;
          const type = parseContentType(text.toString('utf8'), basename(file, '.yaml'), module);
          if (type !== undefined) out.push(type);
        } catch {
          // unreadable: skipped, as the document describes what it can
        }
      }
    }
  }
  return out;
}

function valueSchema(type: string): Json {
  switch (type.toLowerCase()) {
    case 'boolean': return { type: 'boolean' };
    case 'long': return { type: 'integer' };
    case 'double': case 'decimal': return { type: 'number' };
    case 'date': return { type: 'string', format: 'date-time' };
    case 'string': case 'richtext': return { type: 'string' };
    // An asset or another content type: its id, or the object a reference resolver expands it to.
    default: return { description: `A ${type} reference (an object when the endpoint expands it)` };
  }
}

/** The schema of a node of this type: the generic node plus the model's properties (all optional: `properties=` may leave any out). */
export function contentTypeSchema(t: ContentType): Json {
  const properties: Record<string, Json> = {};
  for (const p of t.properties) {
    // Multi-valued properties render as arrays of strings (delivery/render-value.ts).
    const schema = p.multiple ? { type: 'array', items: { type: 'string' } } : valueSchema(p.type);
    properties[p.name] = p.label !== undefined ? { ...schema, title: p.label } : schema;
  }
  return {
    description: `Content type ${t.name} (module ${t.module}, workspace ${t.workspace})`,
    allOf: [{ $ref: '#/components/schemas/Node' }, { type: 'object', properties }],
  };
}

/** A component name for the type: unique across modules, and a valid OpenAPI component key. */
export function schemaNameOf(t: ContentType): string {
  return `${t.module}_${t.name}`.replace(/[^A-Za-z0-9._-]/g, '_');
}
