// Delivery layer: validates one endpoint definition (parsed YAML) and applies defaults, presets and canonical names.
import { z } from 'zod';
import { toCanonicalName } from '../model/names.js';
import type { CacheControlConfig } from '../config/notify-config.js';
import { deriveEndpointPath } from './derive-endpoint-path.js';
import { REFERENCE, RESOLVER_TYPE, RESOLVERS, TOP_LEVEL } from './endpoint-schema.js';
import {
  ENDPOINT_TYPE_NAMES,
  RESOLVER_TYPE_NAMES,
  endpointKindOf,
  resolverKindOf,
  type EndpointKind,
  type ResolverKind,
} from './type-aliases.js';

export type { EndpointKind } from './type-aliases.js';

export interface EndpointDefinition {
  /** `/delivery/pages/v1`, without the `/.rest` prefix. */
  readonly endpointPath: string;
  /** Absolute path of the definition file. */
  readonly source: string;
  /** Name of the light module folder. */
  readonly module: string;
  readonly kind: EndpointKind;
  readonly workspace: string;
  /** `/` when absent; always a leading `/` and no trailing `/`. */
  readonly rootPath: string;
  readonly properties?: readonly string[];
  readonly excludeProperties?: readonly string[];
  readonly nodeTypes?: readonly string[];
  readonly childNodeTypes?: readonly string[];
  readonly depth: number;
  readonly strict: boolean;
  readonly limit: number;
  readonly maxLimit: number;
  readonly references: readonly ReferenceDefinition[];
  readonly referenceDepth: number;
  readonly referenceRepeat: boolean;
  readonly includeSystemProperties: boolean;
  readonly systemProperties?: readonly string[];
  readonly bypassWorkspaceAcls: boolean;
  readonly personalized: boolean;
  readonly timeToLive?: number;
  /** `cacheControl:` of the definition (http/cache-control.ts). */
  readonly cacheControl?: CacheControlConfig;
}

export interface ReferenceDefinition {
  readonly name?: string;
  readonly nodeType?: string;
  readonly propertyName: string;
  readonly resolver: ResolverDefinition;
}

export type ResolverDefinition =
  | {
      readonly kind: 'jcrReferenceResolver';
      readonly targetWorkspace: string;
      readonly expand: boolean;
      readonly generateLink: boolean;
      readonly depthInReferencedNode: number;
      readonly properties?: readonly string[];
      readonly excludeProperties?: readonly string[];
    }
  | {
      readonly kind: 'assetReferenceResolver';
      readonly expand: boolean;
      readonly includeDownloadLink: boolean;
      readonly includeAssetMetadata: boolean;
      readonly assetRenditions?: readonly string[];
    }
  | { readonly kind: 'richTextLinkReferenceResolver'; readonly completeUrl: boolean };

export interface DefinitionContext {
  readonly source: string;
  readonly module: string;
  /** Path of the file below `restEndpoints/`, e.g. `delivery/pages_v1.yaml`. */
  readonly relativeFile: string;
}

/** Location of a value inside the parsed YAML, so the loader can name its line. */
export type DefinitionPath = readonly (string | number)[];

export type ParseResult =
  | { readonly ok: true; readonly definition: EndpointDefinition; readonly warnings: string[] }
  | { readonly ok: false; readonly reason: string; readonly path?: DefinitionPath };

// Values of `jcrPagesDeliveryEndpoint_v2` (SPEC.md); a value in the definition always wins.
const PAGES_PRESET = {
  workspace: 'website',
  depth: 100,
  personalized: true,
  systemProperties: ['cms:template'],
  nodeTypes: ['cms:page', 'cms:component', 'cms:area'],
  childNodeTypes: ['cms:area', 'cms:component'],
} as const;

// ---- parsing --------------------------------------------------------------------------------------

class DefinitionError extends Error {
  constructor(
    readonly reason: string,
    readonly path: DefinitionPath,
  ) {
    super(reason);
  }
}

type RawMap = Readonly<Record<string, unknown>>;

/** Validates a parsed definition file and returns the definition with every default applied. */
export function parseEndpointDefinition(raw: unknown, ctx: DefinitionContext): ParseResult {
  const warnings: string[] = [];
  try {
    return { ok: true, definition: buildDefinition(raw, ctx, warnings), warnings };
  } catch (err) {
    if (err instanceof DefinitionError) return { ok: false, reason: err.reason, path: err.path };
    throw err;
  }
}

/** True when the definition says `enabled: false`; such files are skipped, not reported. */
export function isDisabledDefinition(raw: unknown): boolean {
  return isMap(raw) && raw.enabled === false;
}

function buildDefinition(raw: unknown, ctx: DefinitionContext, warnings: string[]): EndpointDefinition {
  const map = asMap(raw, [], 'an endpoint definition (a map of properties)');
  warnUnknownKeys(map, TOP_LEVEL, [], warnings);
  const top = validate(TOP_LEVEL, map, []);
  const kind = kindOf(top, [], 'endpoint type', endpointKindOf, ENDPOINT_TYPE_NAMES);
  const pages = kind === 'pages';

  const workspace = top.workspace ?? (pages ? PAGES_PRESET.workspace : undefined);
  if (workspace === undefined) throw new DefinitionError('workspace: required', ['workspace']);

  const limit = top.limit ?? 10;
  const maxLimit = top.maxLimit ?? 100;
  if (limit > maxLimit) warnings.push(`limit: ${limit} is above maxLimit ${maxLimit}; pages are capped at ${maxLimit}`);
  if (top.properties !== undefined && top.excludeProperties !== undefined) {
    warnings.push('excludeProperties: ignored because properties is also set');
  }

  const definition: EndpointDefinition = {
    endpointPath: top.endpointPath !== undefined ? trimTrailingSlash(top.endpointPath) : deriveEndpointPath(ctx.relativeFile),
    source: ctx.source,
    module: ctx.module,
    kind,
    workspace,
    rootPath: normaliseRootPath(top.rootPath),
    properties: canonicalList(top.properties),
    excludeProperties: canonicalList(top.excludeProperties),
    nodeTypes: canonicalList(top.nodeTypes) ?? (pages ? PAGES_PRESET.nodeTypes : undefined),
    childNodeTypes: canonicalList(top.childNodeTypes) ?? (pages ? PAGES_PRESET.childNodeTypes : undefined),
    depth: top.depth ?? (pages ? PAGES_PRESET.depth : 0),
    strict: top.strict ?? false,
    limit,
    maxLimit,
    references: Object.freeze(parseReferences(map.references, warnings)),
    referenceDepth: top.referenceDepth ?? 1,
    referenceRepeat: top.referenceRepeat ?? false,
    includeSystemProperties: top.includeSystemProperties ?? false,
    systemProperties: canonicalList(top.systemProperties) ?? (pages ? PAGES_PRESET.systemProperties : undefined),
    bypassWorkspaceAcls: top.bypassWorkspaceAcls ?? false,
    personalized: top.personalized ?? (pages ? PAGES_PRESET.personalized : false),
    timeToLive: top.timeToLive,
    cacheControl: top.cacheControl,
  };
  return Object.freeze(dropUndefined(definition));
}

function parseReferences(raw: unknown, warnings: string[]): ReferenceDefinition[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) && !isMap(raw)) {
    throw new DefinitionError(`references: expected a list of reference definitions, got ${describe(raw)}`, ['references']);
  }
  // The original CMS also accepts a map of named entries for any list of definitions; the key is the name.
  const entries: [string | number, unknown, string | undefined][] = Array.isArray(raw)
    ? raw.map((v, i) => [i, v, undefined])
    : Object.entries(raw).map(([k, v]) => [k, v, k]);
  return entries.map(([key, value, keyName]) => {
    const path = ['references', key];
    const map = asMap(value, path, 'a reference definition (a map with propertyName and referenceResolver)');
    warnUnknownKeys(map, REFERENCE, path, warnings);
    const ref = validate(REFERENCE, map, path);
    const name = ref.name ?? keyName;
    return Object.freeze(
      dropUndefined({
        name,
        nodeType: ref.nodeType !== undefined ? toCanonicalName(ref.nodeType) : undefined,
        propertyName: ref.propertyName,
        resolver: parseResolver(stripNulls(ref.referenceResolver), [...path, 'referenceResolver'], warnings),
      }),
    );
  });
}

function parseResolver(map: RawMap, path: DefinitionPath, warnings: string[]): ResolverDefinition {
  const common = validate(RESOLVER_TYPE, map, path);
  const kind = kindOf(common, path, 'reference resolver', resolverKindOf, RESOLVER_TYPE_NAMES);
  switch (kind) {
    case 'jcrReferenceResolver': {
      warnUnknownKeys(map, RESOLVERS[kind], path, warnings);
      const r = validate(RESOLVERS[kind], map, path);
      return Object.freeze(
        dropUndefined({
          kind,
          targetWorkspace: r.targetWorkspace,
          expand: r.expand ?? true,
          generateLink: r.generateLink ?? false,
          depthInReferencedNode: r.depthInReferencedNode ?? 1,
          properties: canonicalList(r.properties),
          excludeProperties: canonicalList(r.excludeProperties),
        }),
      );
    }
    case 'assetReferenceResolver': {
      warnUnknownKeys(map, RESOLVERS[kind], path, warnings);
      const r = validate(RESOLVERS[kind], map, path);
      return Object.freeze(
        dropUndefined({
          kind,
          expand: r.expand ?? true,
          includeDownloadLink: r.includeDownloadLink ?? true,
          includeAssetMetadata: r.includeAssetMetadata ?? true,
          assetRenditions: r.assetRenditions !== undefined ? Object.freeze(r.assetRenditions) : undefined,
        }),
      );
    }
    case 'richTextLinkReferenceResolver': {
      warnUnknownKeys(map, RESOLVERS[kind], path, warnings);
      const r = validate(RESOLVERS[kind], map, path);
      return Object.freeze({ kind, completeUrl: r.completeUrl ?? true });
    }
    default: {
      const unreachable: never = kind;
      throw new Error(`unhandled resolver kind ${String(unreachable)}`);
    }
  }
}

/** Resolves `$type` / `class` to a kind; both may be given if they agree. */
function kindOf<K extends string>(
  typed: { $type?: string; class?: string },
  path: DefinitionPath,
  what: string,
  lookup: (name: string) => K | undefined,
  names: readonly string[],
): K {
  if (typed.$type === undefined && typed.class === undefined) {
    throw new DefinitionError(`${at(path, '$type')}: required unless class is set`, [...path, '$type']);
  }
  const fromType = typed.$type !== undefined ? lookup(typed.$type) : undefined;
  if (typed.$type !== undefined && fromType === undefined) {
    const msg = `unknown ${what} "${typed.$type}"; expected one of ${names.join(', ')}`;
    throw new DefinitionError(`${at(path, '$type')}: ${msg}`, [...path, '$type']);
  }
  const fromClass = typed.class !== undefined ? lookup(typed.class) : undefined;
  if (typed.class !== undefined && fromClass === undefined) {
    const msg = `unknown ${what} class "${typed.class}"; use $type with one of ${names.join(', ')}`;
    throw new DefinitionError(`${at(path, 'class')}: ${msg}`, [...path, 'class']);
  }
  if (fromType !== undefined && fromClass !== undefined && fromType !== fromClass) {
    throw new DefinitionError(`${at(path, 'class')}: "${typed.class}" contradicts $type "${typed.$type}"`, [...path, 'class']);
  }
  return (fromType ?? fromClass) as K;
}

// ---- helpers --------------------------------------------------------------------------------------

function validate<S extends z.ZodObject>(schema: S, map: RawMap, path: DefinitionPath): z.output<S> {
  const result = schema.safeParse(map);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const reason = issues
    .map((issue) => {
      const full = [...path, ...issue.path.filter((p): p is string | number => typeof p !== 'symbol')];
      const value = valueAt(map, issue.path);
      const got = value === undefined || issue.message === 'required' ? '' : `, got ${describe(value)}`;
      return `${formatPath(full)}: ${issue.message}${got}`;
    })
    .join('; ');
  const first = issues[0]?.path.filter((p): p is string | number => typeof p !== 'symbol') ?? [];
  throw new DefinitionError(reason, [...path, ...first]);
}

function warnUnknownKeys(map: RawMap, schema: z.ZodObject, path: DefinitionPath, warnings: string[]): void {
  for (const key of Object.keys(map)) {
    if (!(key in schema.shape)) warnings.push(`${at(path, key)}: unknown property, ignored`);
  }
}

/** A YAML map with its null values removed: `depth:` with nothing after it means "not set". */
function asMap(value: unknown, path: DefinitionPath, what: string): RawMap {
  if (!isMap(value)) {
    const where = path.length === 0 ? 'definition' : formatPath(path);
    throw new DefinitionError(`${where}: expected ${what}, got ${describe(value)}`, path);
  }
  return stripNulls(value);
}

function stripNulls(map: RawMap): RawMap {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(map)) if (v !== null) out[k] = v;
  return out;
}

function isMap(value: unknown): value is RawMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function valueAt(map: RawMap, path: readonly PropertyKey[]): unknown {
  let v: unknown = map;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || typeof key === 'symbol') return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (value instanceof Date) return `a date (${value.toISOString()})`;
  if (typeof value === 'object') {
    const json = JSON.stringify(value);
    return json.length > 60 ? `${json.slice(0, 57)}...` : json;
  }
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function at(path: DefinitionPath, key: string): string {
  return formatPath([...path, key]);
}

/** `['references', 1, 'referenceResolver']` → `references[1].referenceResolver`. */
function formatPath(path: DefinitionPath): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

function canonicalList(list: readonly string[] | undefined): readonly string[] | undefined {
  return list === undefined ? undefined : Object.freeze(list.map(toCanonicalName));
}

function normaliseRootPath(rootPath: string | undefined): string {
  const trimmed = (rootPath ?? '').trim().replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function trimTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** Optional fields are left out rather than set to undefined, so definitions compare and print cleanly. */
function dropUndefined<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) if (obj[key] === undefined) delete obj[key];
  return obj;
}
