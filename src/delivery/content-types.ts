// Delivery layer: content types of the light modules (`<module>/contentTypes/*.yaml`, the original's
// format: `datasource.workspace` and a `model` of typed properties, as a list or a map by name). The
// OpenAPI document describes nodes by them and the GraphQL API builds its schema from them.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';

export interface ContentType {
  /** The file name without `.yaml`, as the original names a content type. */
  readonly name: string;
  readonly module: string;
  readonly workspace: string;
  /** `model.nodeType` (the items' primary type, as written); undefined when the model names none. */
  readonly nodeType?: string;
  readonly properties: readonly ContentTypeProperty[];
}

export interface ContentTypeProperty {
  readonly name: string;
  /** As written (`String` when absent): String, Boolean, Long, Double, Decimal, Date, asset, richText, or a model's name. */
  readonly type: string;
  readonly multiple: boolean;
  /** `i18n: true`: the value has a variant per language. */
  readonly i18n: boolean;
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
      name, type: typeof m.type === 'string' ? m.type : 'String', multiple: m.multiple === true, i18n: m.i18n === true,
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
  const nodeType = raw.model.nodeType;
  return {
    name, module, workspace, ...(typeof nodeType === 'string' && nodeType !== '' ? { nodeType } : {}),
    properties: propertiesOf(raw.model.properties),
  };
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
