// GraphQL layer: the resolvers' reads. An item is a node of a content type's workspace and type, read
// through the caller's session (read-context.ts), in the language its field asked for; its property
// values are typed as the content type declares them, its references and assets resolved in batches.
import { GraphQLError } from 'graphql';
import type { FilterSpec, OrderSpec, QuerySpec, Target } from '../query/ast.js';
import type { LocaleChoice } from '../delivery/resolve-locale.js';
import { assetLink, renditionLink, undefinedRenditionLink } from '../delivery/links.js';
import { uuidOf } from '../delivery/resolvers/reference-rules.js';
import { scalarAsString } from '../delivery/render-value.js';
import type { ScalarValue } from '../model/property-type.js';
import { normalizePath } from '../model/paths.js';
import type { NodeRecord } from '../store/rows.js';
import type { ChildPageRequest } from '../store/child-pages.js';
import { FilterExpressionError } from './filter-expression-error.js';
import { parseFilterExpression } from './filter-expression.js';
import type { ReadContext } from './read-context.js';

/** A content type as the resolvers need it: where its items are and which node types they have. */
export interface ItemType {
  readonly name: string;
  readonly workspace: string;
  /** Whether a node of this (canonical) primary type is an item of the type. */
  accepts(nodeType: string): boolean;
  /** Declared property names: what `filter` and `sort` may name. */
  readonly properties?: ReadonlySet<string>;
}

export interface Item {
  readonly node: NodeRecord;
  readonly locale: LocaleChoice;
}

export interface AssetValue {
  readonly node: NodeRecord;
  readonly fileName: string;
  readonly extension: string | undefined;
  readonly mimeType: string | undefined;
  readonly link: string;
  readonly created: string | undefined;
}

const DAM = 'dam';

function stored(node: NodeRecord, name: string): ScalarValue | readonly ScalarValue[] | undefined {
  for (const p of node.properties) if (p[0] === name) return p[2];
  return undefined;
}

/** The value in the item's language: `<name>_<locale>` when the language is not the default and has one. */
function localized(item: Item, name: string): ScalarValue | readonly ScalarValue[] | undefined {
  if (!item.locale.isDefault) {
    const variant = stored(item.node, `${name}_${item.locale.locale}`);
    if (variant !== undefined) return variant;
  }
  return stored(item.node, name);
}

function listOf(v: ScalarValue | readonly ScalarValue[] | undefined): readonly ScalarValue[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v as ScalarValue];
}

function typed(v: ScalarValue, scalar: string): ScalarValue | null {
  switch (scalar) {
    case 'Boolean': return v === true || v === 'true';
    case 'Float': {
      const n = typeof v === 'number' ? v : Number(v);
      return Number.isFinite(n) ? n : null;
    }
    case 'Long': return typeof v === 'number' ? v : /^-?\d+$/.test(String(v)) ? String(v) : null;
    default: return scalarAsString(v);
  }
}

/** A scalar property, typed as declared; a value that is not of the type is null. */
export function valueOf(item: Item, name: string, scalar: string, many: boolean): ScalarValue | ScalarValue[] | null {
  const values = listOf(localized(item, name));
  if (many) return values.map((v) => typed(v, scalar)).filter((v): v is ScalarValue => v !== null);
  return values.length === 0 ? null : typed(values[0]!, scalar);
}

export function metadataOf(item: Item) {
  const n = item.node;
  const text = (name: string): string | null => {
    const v = stored(n, name);
    return v === undefined ? null : scalarAsString(Array.isArray(v) ? v[0] as ScalarValue : v as ScalarValue);
  };
  return {
    id: n.id, name: n.name, path: n.path,
    created: text('cms:created'), createdBy: text('cms:createdBy'),
    lastModified: text('cms:lastModified'), lastModifiedBy: text('cms:lastModifiedBy'),
    tags: listOf(stored(n, 'cms:tags')).map(scalarAsString),
  };
}

async function item(type: ItemType, node: NodeRecord | undefined, locale: LocaleChoice): Promise<Item | null> {
  return node !== undefined && type.accepts(node.type) ? { node, locale } : null;
}

export async function itemById(type: ItemType, id: string, locale: LocaleChoice, ctx: ReadContext): Promise<Item | null> {
  const uuid = uuidOf(id);
  return uuid === undefined ? null : item(type, await ctx.node(type.workspace, uuid), locale);
}

export async function itemAt(type: ItemType, path: string, locale: LocaleChoice, ctx: ReadContext): Promise<Item | null> {
  const p = checkedPath(path, 'path');
  return item(type, await ctx.nodeAt(type.workspace, p), locale);
}

/** References to items of `target`: those the caller cannot read, or of another type, are null (left out of lists). */
export async function referencesOf(from: Item, name: string, target: ItemType, many: boolean, ctx: ReadContext): Promise<Item | Item[] | null> {
  const ids = listOf(localized(from, name)).map(uuidOf).filter((v): v is string => v !== undefined);
  const found = await Promise.all((many ? ids : ids.slice(0, 1)).map(async (id) => item(target, await ctx.node(target.workspace, id), from.locale)));
  const items = found.filter((i): i is Item => i !== null);
  ctx.charge(items.length);
  return many ? items : items[0] ?? null;
}

async function assetValue(node: NodeRecord | undefined, ctx: ReadContext): Promise<AssetValue | null> {
  if (node === undefined) return null;
  const resource = await ctx.resourceOf(node);
  const text = (n: NodeRecord | undefined, name: string): string | undefined => {
    const v = n === undefined ? undefined : stored(n, name);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const fileName = text(resource, 'fileName') ?? node.name;
  const extension = text(resource, 'extension') ?? /\.([^./]+)$/.exec(fileName)?.[1];
  return {
    node, fileName, extension, mimeType: text(resource, 'jcr:mimeType'), link: assetLink(ctx.links, node.id, fileName),
    created: text(node, 'cms:created'),
  };
}

/** An asset property of an item, or an asset asked for by id or path. */
export async function assetOf(
  from: Item | undefined, ref: string | { id: string } | { path: string }, many: boolean, ctx: ReadContext,
): Promise<AssetValue | AssetValue[] | null> {
  if (typeof ref === 'object') {
    if ('id' in ref) {
      const id = uuidOf(ref.id);
      return id === undefined ? null : assetValue(await ctx.node(DAM, id), ctx);
    }
    return assetValue(await ctx.nodeAt(DAM, checkedPath(ref.path, 'path')), ctx);
  }
  const ids = listOf(from === undefined ? undefined : localized(from, ref)).map(uuidOf).filter((v): v is string => v !== undefined);
  const found = await Promise.all((many ? ids : ids.slice(0, 1)).map(async (id) => assetValue(await ctx.node(DAM, id), ctx)));
  const assets = found.filter((a): a is AssetValue => a !== null);
  ctx.charge(assets.length);
  return many ? assets : assets[0] ?? null;
}

export function assetRenditions(a: AssetValue, names: readonly string[] | undefined, ctx: ReadContext): { renditionName: string; link: string }[] {
  const theme = ctx.theme;
  const wanted = names ?? theme?.variations ?? [];
  return wanted.map((name) => ({
    renditionName: name,
    // A variation the theme does not define links to the original size, as delivery's asset resolver does.
    link: theme?.hasVariation(name) ? renditionLink(ctx.links, theme.name, name, a.node.path, a.fileName) : undefinedRenditionLink(ctx.links, a.node.path, a.extension),
  }));
}

function badInput(message: string, code = 'BAD_USER_INPUT'): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

function checkedPath(raw: string, argument: string): string {
  const p = normalizePath(raw);
  if (p === undefined) throw badInput(`${argument}: ${JSON.stringify(raw.slice(0, 200))} is no path (it starts with / and names nodes)`);
  return p;
}

function pageOf(limit: number | null | undefined, offset: number | null | undefined, ctx: ReadContext): { limit: number; offset: number } {
  const l = limit ?? ctx.defaultLimit;
  if (l < 0 || l > ctx.maxLimit) throw badInput(`limit: ${l} is not between 0 and ${ctx.maxLimit}`, 'LIMIT_TOO_LARGE');
  const o = offset ?? 0;
  if (o < 0) throw badInput(`offset: ${o} is negative`);
  return { limit: l, offset: o };
}

/** What `@name` of a filter stands for: a declared property, or a `_metadata` field. */
function targetFor(type: ItemType): (name: string) => Target | undefined {
  return (name) => {
    switch (name) {
      case '_metadata.id': return { kind: 'uuid' };
      case '_metadata.name': return { kind: 'name' };
      case '_metadata.path': return { kind: 'path' };
      case '_metadata.nodeType': return { kind: 'type' };
      case '_metadata.created': return { kind: 'property', name: 'cms:created' };
      case '_metadata.createdBy': return { kind: 'property', name: 'cms:createdBy' };
      case '_metadata.lastModified': return { kind: 'property', name: 'cms:lastModified' };
      case '_metadata.lastModifiedBy': return { kind: 'property', name: 'cms:lastModifiedBy' };
      case '_metadata.tags': return { kind: 'property', name: 'cms:tags' };
      default: return type.properties === undefined || type.properties.has(name) ? { kind: 'property', name } : undefined;
    }
  };
}

export interface ListArguments {
  readonly path?: string | null;
  readonly locale?: string | null;
  readonly limit?: number | null;
  readonly offset?: number | null;
  readonly sort?: readonly { field: string; descending: boolean }[] | null;
  readonly filter?: string | null;
}

/** A list field: the query index (or SQL) answers it, filtered by the caller's access like every query. */
export async function itemsOf(type: ItemType, args: ListArguments, ctx: ReadContext): Promise<Item[]> {
  const locale = ctx.locale(args.locale ?? undefined);
  const { limit, offset } = pageOf(args.limit, args.offset, ctx);
  let filters: FilterSpec[] = [];
  if (args.filter != null && args.filter.trim() !== '') {
    try {
      filters = parseFilterExpression(args.filter, targetFor(type));
    } catch (err) {
      if (err instanceof FilterExpressionError) throw badInput(`filter: ${err.message}`, 'BAD_FILTER');
      throw err;
    }
  }
  const orderBy: OrderSpec[] = (args.sort ?? []).map((s) => ({ target: { kind: 'property', name: s.field }, descending: s.descending }));
  if (limit === 0) return [];
  const path = args.path != null ? checkedPath(args.path, 'path') : undefined;
  const spec: QuerySpec = {
    workspace: type.workspace, rootPath: path ?? '/',
    typeFilter: (t) => type.accepts(t), filters, fullText: [], orderBy, offset, limit,
    defaultLocaleSuffix: `_${ctx.site.defaultLocale}`,
  };
  // As the original: without `path` every item of the workspace, with it the items directly under it.
  const result = await ctx.session.query(spec, path === undefined ? [] : [{ kind: 'childOf', path }]);
  ctx.charge(result.nodes.length);
  return result.nodes.map((node) => ({ node, locale }));
}

/** `assets(path | id)`: the assets in a dam folder, natural order. */
export async function assetsIn(
  args: { path?: string | null; id?: string | null; limit?: number | null; offset?: number | null }, ctx: ReadContext,
): Promise<AssetValue[]> {
  const { limit, offset } = pageOf(args.limit, args.offset, ctx);
  let folder: string | undefined;
  if (args.id != null) {
    const id = uuidOf(args.id);
    folder = id === undefined ? undefined : (await ctx.node(DAM, id))?.path;
  } else {
    folder = checkedPath(args.path ?? '/', 'path');
  }
  if (folder === undefined || limit === 0) return [];
  const chosen: NodeRecord[] = [];
  let skipped = 0;
  let request: ChildPageRequest = { parentPath: folder };
  // Pages of children until the window is full: children the caller may not read are left out by the session.
  pages: for (;;) {
    const [page] = await ctx.session.getChildrenPages(DAM, [request], Math.min(500, offset + limit + 1));
    if (page === undefined) break;
    for (const child of page.nodes) {
      if (child.type === 'cms:folder' || child.name === 'jcr:content') continue;
      if (skipped < offset) { skipped++; continue; }
      chosen.push(child);
      if (chosen.length >= limit) break pages;
    }
    if (page.next === undefined) break;
    request = { parentPath: folder, after: page.next };
  }
  ctx.charge(chosen.length);
  // Their resource nodes in one batch.
  const assets = await Promise.all(chosen.map((n) => assetValue(n, ctx)));
  return assets.filter((a): a is AssetValue => a !== null);
}
