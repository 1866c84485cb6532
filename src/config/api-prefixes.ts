// Config layer: where the management APIs live under the context path. Fixed, not configurable; kept
// here, below every layer, so the routes serving them, the rate limits and the OpenAPI document agree.

export const NODES_PREFIX = '/.rest/nodes/v1';
export const PROPERTIES_PREFIX = '/.rest/properties/v1';
export const COMMANDS_PREFIX = '/.rest/commands/v2';
export const IMPORT_PATH = '/.rest/import/v1';
export const EXPORT_PREFIX = '/.rest/export/v1';
/** The deprecated shop API. */
export const SHOP_PREFIX = '/shop/v1';
/** The GraphQL API (its GraphiQL page is at routes/graphiql.ts's GRAPHIQL_PATH). */
export const GRAPHQL_PATH = '/.graphql';
