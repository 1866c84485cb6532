// GraphQL layer: the schema of the original's GraphQL module, built from the content types of the light
// modules (delivery/content-types.ts): per content type an object type with its properties typed as the
// model declares them and `_metadata`, a single field (`book(id, path, locale)`), a list field
// (`books(path, locale, limit, offset, sort, filter)`) and a sort enum; plus `asset`/`assets` and the
// default types `Asset`, `AssetRendition`, `JcrMetadata`. Read-only: no mutation type.
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLError, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLFieldConfig, type GraphQLFieldConfigMap,
  type GraphQLOutputType,
} from 'graphql';
import type { ContentType, ContentTypeProperty } from '../delivery/content-types.js';
import { toCanonicalName } from '../model/names.js';
import { fieldNameOf, isGraphqlName, pluralOf, sortKeyOf, typeNameOf } from './names.js';
import { DateScalar, LocaleScalar, LongScalar } from './scalars.js';
import type { ReadContext } from './read-context.js';
import {
  assetOf, assetRenditions, assetsIn, itemAt, itemById, itemsOf, metadataOf, referencesOf, valueOf, type AssetValue, type ListArguments, type Item, type ItemType,
} from './resolve-items.js';

/** A content type the schema could not include, and why (logged at start, like other definition problems). */
export interface SchemaProblem {
  readonly contentType: string;
  readonly reason: string;
}

export interface BuiltSchema {
  readonly schema: GraphQLSchema;
  /** The content types as the resolvers see them, by list field name (tests and `petal types` read them). */
  readonly types: ReadonlyMap<string, ItemType>;
  readonly problems: readonly SchemaProblem[];
}

type Scalar = 'String' | 'Boolean' | 'Long' | 'Float' | 'Date';

/** How a model property type is exposed: a scalar, an asset, or a reference to another content type. */
type Kind = { readonly kind: 'scalar'; readonly scalar: Scalar } | { readonly kind: 'asset' } | { readonly kind: 'reference'; readonly target: string };

function kindOf(p: ContentTypeProperty): Kind {
  const t = p.type;
  const lower = t.toLowerCase();
  if (lower.startsWith('reference:')) return { kind: 'reference', target: t.slice('reference:'.length) };
  switch (lower) {
    case 'boolean': return { kind: 'scalar', scalar: 'Boolean' };
    case 'long': return { kind: 'scalar', scalar: 'Long' };
    case 'double': case 'decimal': return { kind: 'scalar', scalar: 'Float' };
    case 'date': return { kind: 'scalar', scalar: 'Date' };
    case 'asset': return { kind: 'asset' };
    // String, richText (its HTML as stored), and a sub-model's name (not resolved: its text).
    default: return { kind: 'scalar', scalar: 'String' };
  }
}

const SCALARS = { String: GraphQLString, Boolean: GraphQLBoolean, Long: LongScalar, Float: GraphQLFloat, Date: DateScalar } as const;
const FOLDERS = new Set(['cms:folder']);

/** What `_metadata` resolves to: read once per item, its fields plain values. */
type Metadata = ReturnType<typeof metadataOf> & { readonly nodeType: string };

const JcrMetadata = new GraphQLObjectType<Metadata, ReadContext>({
  name: 'JcrMetadata',
  description: 'The node behind an item: its id, name, path, type, and who created and last changed it when.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID) },
    name: { type: new GraphQLNonNull(GraphQLString) },
    path: { type: new GraphQLNonNull(GraphQLString) },
    nodeType: { type: new GraphQLNonNull(GraphQLString) },
    created: { type: DateScalar },
    createdBy: { type: GraphQLString },
    lastModified: { type: DateScalar },
    lastModifiedBy: { type: GraphQLString },
    tags: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))) },
  },
});

const AssetRendition = new GraphQLObjectType<{ renditionName: string; link: string }, ReadContext>({
  name: 'AssetRendition',
  fields: {
    renditionName: { type: new GraphQLNonNull(GraphQLString) },
    link: { type: new GraphQLNonNull(GraphQLString), description: 'The rendition of the site\'s theme, or the original bytes when the theme has no such variation.' },
  },
});

const Asset = new GraphQLObjectType<AssetValue, ReadContext>({
  name: 'Asset',
  description: 'An asset of the dam workspace.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (a) => a.node.id },
    name: { type: new GraphQLNonNull(GraphQLString), resolve: (a) => a.node.name },
    path: { type: new GraphQLNonNull(GraphQLString), resolve: (a) => a.node.path },
    fileName: { type: new GraphQLNonNull(GraphQLString), resolve: (a) => a.fileName },
    mimeType: { type: GraphQLString, resolve: (a) => a.mimeType },
    link: { type: new GraphQLNonNull(GraphQLString), description: 'The original file (`/dam/jcr:<id>/<file name>`).', resolve: (a) => a.link },
    created: { type: DateScalar, resolve: (a) => a.created },
    renditions: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(AssetRendition))),
      description: 'Links to renditions of the site\'s theme: the ones named, or every variation of the theme.',
      args: { renditionNames: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) } },
      resolve: (a, args: { renditionNames?: readonly string[] | null }, ctx) => assetRenditions(a, args.renditionNames ?? undefined, ctx),
    },
  },
});

const listArgs = (sort: GraphQLEnumType | undefined) => ({
  path: { type: GraphQLString, description: 'Only items below this path.' },
  locale: { type: LocaleScalar },
  limit: { type: GraphQLInt, description: 'At most this many items (default and largest: the server\'s graphql.defaultLimit and graphql.maxLimit).' },
  offset: { type: GraphQLInt, description: 'Items skipped first (default 0).' },
  ...(sort !== undefined ? { sort: { type: new GraphQLList(new GraphQLNonNull(sort)) } } : {}),
  filter: { type: GraphQLString, description: "A condition such as \"@title LIKE '%War%' OR @title LIKE '%Peace%'\" (README: GraphQL)." },
});

interface Planned {
  readonly contentType: ContentType;
  readonly typeName: string;
  readonly single: string;
  readonly list: string;
  readonly properties: readonly { readonly property: ContentTypeProperty; readonly kind: Kind }[];
}

/** The schema of these content types; ones it cannot name or that clash are left out with a problem. */
export function buildSchema(contentTypes: readonly ContentType[]): BuiltSchema {
  const problems: SchemaProblem[] = [];
  const planned = new Map<string, Planned>();
  const taken = new Set(['Query', 'Asset', 'AssetRendition', 'JcrMetadata', 'Date', 'Long', 'Locale', 'asset', 'assets']);
  for (const ct of contentTypes) {
    const typeName = typeNameOf(ct.name);
    const single = fieldNameOf(ct.name);
    const list = pluralOf(single);
    const names = [typeName, `${typeName}Sort`, single, list];
    if (!names.every(isGraphqlName)) {
      problems.push({ contentType: `${ct.module}/${ct.name}`, reason: `its name gives no valid GraphQL names (${names.join(', ')})` });
      continue;
    }
    const clash = names.find((n) => taken.has(n));
    if (clash !== undefined) {
      problems.push({ contentType: `${ct.module}/${ct.name}`, reason: `${clash} is taken already (by another content type or a default type)` });
      continue;
    }
    for (const n of names) taken.add(n);
    const properties = [];
    for (const p of ct.properties) {
      if (!isGraphqlName(p.name) || p.name === '_metadata') {
        problems.push({ contentType: `${ct.module}/${ct.name}`, reason: `property ${JSON.stringify(p.name)} is no GraphQL field name: left out` });
        continue;
      }
      properties.push({ property: p, kind: kindOf(p) });
    }
    planned.set(ct.name, { contentType: ct, typeName, single, list, properties });
  }

  const objectTypes = new Map<string, GraphQLObjectType<Item, ReadContext>>();
  const itemTypes = new Map<string, ItemType>();
  for (const p of planned.values()) {
    const nodeType = p.contentType.nodeType !== undefined ? toCanonicalName(p.contentType.nodeType) : undefined;
    itemTypes.set(p.contentType.name, {
      name: p.contentType.name, workspace: p.contentType.workspace,
      properties: new Set(p.properties.map((x) => x.property.name)),
      accepts: nodeType !== undefined ? (t) => t === nodeType : (t) => !FOLDERS.has(t),
    });
  }
  for (const p of planned.values()) {
    objectTypes.set(p.contentType.name, new GraphQLObjectType<Item, ReadContext>({
      name: p.typeName,
      description: `Content type ${p.contentType.name} (module ${p.contentType.module}, workspace ${p.contentType.workspace}).`,
      fields: () => {
        const fields: GraphQLFieldConfigMap<Item, ReadContext> = {
          _metadata: { type: new GraphQLNonNull(JcrMetadata), resolve: (i, _a, ctx): Metadata => ({ ...metadataOf(i), nodeType: ctx.outName(i.node.type) }) },
        };
        for (const { property, kind } of p.properties) fields[property.name] = fieldOf(property, kind);
        return fields;
      },
    }));
  }

  function fieldOf(property: ContentTypeProperty, kind: Kind): GraphQLFieldConfig<Item, ReadContext> {
    const description = property.label;
    const many = property.multiple;
    const wrap = (t: GraphQLOutputType): GraphQLOutputType => (many ? new GraphQLList(new GraphQLNonNull(t)) : t);
    switch (kind.kind) {
      case 'scalar':
        return { type: wrap(SCALARS[kind.scalar]), ...(description ? { description } : {}), resolve: (i) => valueOf(i, property.name, kind.scalar, many) };
      case 'asset':
        return { type: wrap(Asset), ...(description ? { description } : {}), resolve: (i, _a, ctx) => assetOf(i, property.name, many, ctx) };
      case 'reference': {
        const target = objectTypes.get(kind.target);
        const targetType = itemTypes.get(kind.target);
        if (target === undefined || targetType === undefined) {
          // A reference to a content type the schema does not have: its stored ids, as text.
          return { type: wrap(GraphQLString), description: `${description ?? property.name}: ids of ${kind.target} (no such content type)`, resolve: (i) => valueOf(i, property.name, 'String', many) };
        }
        return { type: wrap(target), ...(description ? { description } : {}), resolve: (i, _a, ctx) => referencesOf(i, property.name, targetType, many, ctx) };
      }
    }
  }

  const query: GraphQLFieldConfigMap<unknown, ReadContext> = {};
  for (const p of planned.values()) {
    const object = objectTypes.get(p.contentType.name)!;
    const type = itemTypes.get(p.contentType.name)!;
    const sortValues: Record<string, { value: { field: string; descending: boolean } }> = {};
    for (const { property, kind } of p.properties) {
      if (kind.kind !== 'scalar' || property.multiple) continue;
      const key = sortKeyOf(property.name);
      sortValues[`${key}_ASC`] = { value: { field: property.name, descending: false } };
      sortValues[`${key}_DESC`] = { value: { field: property.name, descending: true } };
    }
    const sort = Object.keys(sortValues).length > 0 ? new GraphQLEnumType({ name: `${p.typeName}Sort`, values: sortValues }) : undefined;
    query[p.single] = {
      type: object,
      description: `One ${p.contentType.name} by id or path; null when there is none the caller may read.`,
      args: { id: { type: GraphQLID }, path: { type: GraphQLString }, locale: { type: LocaleScalar } },
      resolve: (_root, args: { id?: string | null; path?: string | null; locale?: string | null }, ctx) => {
        if ((args.id == null) === (args.path == null)) throw new GraphQLError('give either id or path', { extensions: { code: 'BAD_USER_INPUT' } });
        const locale = ctx.locale(args.locale ?? undefined);
        return args.id != null ? itemById(type, args.id, locale, ctx) : itemAt(type, args.path!, locale, ctx);
      },
    };
    query[p.list] = {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(object))),
      description: `${p.contentType.name} items the caller may read, in the order asked (default: the repository's).`,
      args: listArgs(sort),
      resolve: (_root, args: ListArguments, ctx) => itemsOf(type, args, ctx),
    };
  }
  query.asset = {
    type: Asset,
    description: 'One asset by id or path (the dam workspace); null when there is none the caller may read.',
    args: { providerId: { type: GraphQLString, defaultValue: 'jcr' }, id: { type: GraphQLID }, path: { type: GraphQLString } },
    resolve: async (_root, args: { providerId?: string | null; id?: string | null; path?: string | null }, ctx) => {
      if ((args.id == null) === (args.path == null)) throw new GraphQLError('give either id or path', { extensions: { code: 'BAD_USER_INPUT' } });
      if ((args.providerId ?? 'jcr') !== 'jcr') return null;
      return assetOf(undefined, args.id != null ? { id: args.id } : { path: args.path! }, false, ctx);
    },
  };
  query.assets = {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Asset))),
    description: 'The assets in a folder of the dam workspace (by its path or id), in their natural order.',
    args: { path: { type: GraphQLString }, id: { type: GraphQLID }, limit: { type: GraphQLInt }, offset: { type: GraphQLInt } },
    resolve: (_root, args: { path?: string | null; id?: string | null; limit?: number | null; offset?: number | null }, ctx) => assetsIn(args, ctx),
  };

  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    types: [JcrMetadata, Asset, AssetRendition, DateScalar, LongScalar, LocaleScalar],
  });
  const byList = new Map<string, ItemType>();
  for (const p of planned.values()) byList.set(p.list, itemTypes.get(p.contentType.name)!);
  return { schema, types: byList, problems };
}
