// GraphQL layer: the GraphQL API as the server holds it: the schema built from the light modules'
// content types, its query runner, and the persisted queries (automatic ones by hash, named ones from
// `<module>/graphql/queries/*.graphql`). Rebuilt when the modules change; each build is a new object,
// so answers cached for the previous schema are never served for the new one.
import { printSchema } from 'graphql';
import type { GraphqlConfig } from '../config/load-config.js';
import { loadContentTypes } from '../delivery/content-types.js';
import { buildSchema, type BuiltSchema, type SchemaProblem } from './build-schema.js';
import { loadNamedQueries, PersistedQueries } from './persisted-queries.js';
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from './query-limits.js';
import { QueryRunner } from './run-query.js';

export interface GraphqlSettings {
  readonly limits: QueryLimits;
  /** Introspection queries (`__schema`, `__type`) allowed. */
  readonly introspection: boolean;
  /** Automatic persisted queries: a client may register a query by its SHA-256 and send only the hash after. */
  readonly automaticPersistedQueries: boolean;
  /** Items of a list field when the query gives no `limit`. */
  readonly defaultLimit: number;
  /** Most items (content items and assets, references included) one answer may hold. */
  readonly maxItems: number;
}

export const DEFAULT_GRAPHQL_SETTINGS: GraphqlSettings = {
  limits: DEFAULT_QUERY_LIMITS, introspection: true, automaticPersistedQueries: true, defaultLimit: 20, maxItems: 5_000,
};

/** petal.yaml `graphql:` with the defaults: introspection on except when NODE_ENV=production. */
export function graphqlSettingsOf(c: GraphqlConfig | undefined, nodeEnv: string | undefined): GraphqlSettings {
  const d = DEFAULT_QUERY_LIMITS;
  return {
    limits: {
      ...d,
      maxDepth: c?.maxDepth ?? d.maxDepth, maxComplexity: c?.maxComplexity ?? d.maxComplexity,
      maxAliases: c?.maxAliases ?? d.maxAliases, maxRootFields: c?.maxRootFields ?? d.maxRootFields,
      maxListLimit: c?.maxLimit ?? d.maxListLimit,
    },
    introspection: c?.introspection ?? nodeEnv !== 'production',
    automaticPersistedQueries: c?.automaticPersistedQueries ?? true,
    defaultLimit: Math.min(c?.defaultLimit ?? DEFAULT_GRAPHQL_SETTINGS.defaultLimit, c?.maxLimit ?? d.maxListLimit),
    maxItems: c?.maxItems ?? DEFAULT_GRAPHQL_SETTINGS.maxItems,
  };
}

/** One build of the API: what a request runs against, from start to end. */
export interface GraphqlBuild {
  readonly built: BuiltSchema;
  readonly runner: QueryRunner;
  readonly persisted: PersistedQueries;
  /** The schema in SDL (`petal types --graphql`, and tests of introspection). */
  readonly sdl: string;
  /** Cached answers belong to this build (response-cache owner) and are tagged by this path. */
  readonly endpoint: { readonly endpointPath: string };
  readonly problems: readonly string[];
}

export function buildGraphql(moduleRoots: readonly string[], settings: GraphqlSettings): GraphqlBuild {
  const built = buildSchema(loadContentTypes(moduleRoots));
  const named = loadNamedQueries(moduleRoots);
  const persisted = new PersistedQueries();
  for (const q of named.queries) persisted.addNamed(q.name, q.query);
  const problems = [
    ...built.problems.map((p: SchemaProblem) => `GraphQL: content type ${p.contentType}: ${p.reason}`),
    ...named.problems.map((p) => `GraphQL: ${p.file}: ${p.reason}`),
  ];
  return {
    built, runner: new QueryRunner({ built, limits: settings.limits, introspection: settings.introspection }), persisted,
    sdl: printSchema(built.schema), endpoint: { endpointPath: 'graphql' }, problems,
  };
}

export class GraphqlApi {
  readonly settings: GraphqlSettings;
  readonly #moduleRoots: readonly string[];
  #current: GraphqlBuild;

  constructor(moduleRoots: readonly string[], settings: GraphqlSettings = DEFAULT_GRAPHQL_SETTINGS) {
    this.#moduleRoots = moduleRoots;
    this.settings = settings;
    this.#current = buildGraphql(moduleRoots, settings);
  }

  get current(): GraphqlBuild {
    return this.#current;
  }

  /** Rebuilds from the modules (content types or named queries changed); returns the new build's problems. */
  reload(): readonly string[] {
    const next = buildGraphql(this.#moduleRoots, this.settings);
    // Queries clients registered stay registered: they are texts, valid or not against any schema.
    next.persisted.adoptAutomatic(this.#current.persisted);
    this.#current = next;
    return next.problems;
  }
}
