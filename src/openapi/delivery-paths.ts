// OpenAPI: the operations of one delivery endpoint (Read node, Get children, Query nodes), each only
// when the caller's URI permissions let it call them.
import type { EndpointDefinition } from '../delivery/endpoint-definition.js';
import { FILTER_OPERATORS } from '../delivery/parse-filter.js';
import type { UriAccess } from '../security/uri-permissions.js';
import { errors, jsonArrayResponse, jsonResponse } from './components.js';
import type { Json, Operation, PathItem } from './document-types.js';

export const REST_PREFIX = '/.rest';

const query = (name: string, description: string, schema: Json = { type: 'string' }): Json =>
  ({ name, in: 'query', required: false, description, schema });

function commonParameters(locales: readonly string[]): Json[] {
  return [
    query('lang', 'Language of the answer (else Accept-Language, else the site default); `all` keeps every language variant',
      { type: 'string', examples: [...locales, 'all'] }),
    query('properties', 'Comma-separated property names: only these are rendered'),
    query('excludeProperties', 'Comma-separated property names not to render'),
  ];
}

function pagingParameters(def: EndpointDefinition): Json[] {
  return [
    query('q', 'Full text: whole words, `word*` for a prefix; all must match'),
    query('orderBy', 'Comma-separated `<property> [asc|desc]` (also `@name`, `@path`)'),
    query('offset', 'Results to skip', { type: 'integer', minimum: 0, default: 0 }),
    query('limit', `Results per page (at most ${def.maxLimit})`, { type: 'integer', minimum: 1, maximum: def.maxLimit, default: def.limit }),
    {
      name: 'filters',
      in: 'query',
      required: false,
      style: 'form',
      explode: true,
      description: 'Property filters, each written `name[operator]=value` (`|` separates alternatives; no operator = eq). '
        + `Operators: ${[...FILTER_OPERATORS].join(', ')}. Besides properties: @name, @path, @jcr:uuid, jcr:primaryType, @ancestor.`,
      schema: { type: 'object', additionalProperties: { type: 'string' } },
      // Without it the explorer pre-fills `additionalProp1=string`, a filter nothing matches.
      example: {},
    },
  ];
}

const PATH_PARAMETER: Json = {
  name: 'path', in: 'path', required: true,
  description: 'Node path below the endpoint\'s rootPath; may span several segments (`a/b/c`)',
  schema: { type: 'string' },
};

/** `/delivery/pages/v1` → `delivery_pages_v1`: operation ids must be unique and plain. */
function idOf(endpointPath: string): string {
  return endpointPath.replace(/^\/+/, '').replace(/[^A-Za-z0-9]+/g, '_');
}

export interface DeliveryPathsOptions {
  readonly access: UriAccess;
  readonly locales: readonly string[];
  /** The component schema of the endpoint's nodes: `Node`, or its workspace's content type. */
  readonly nodeSchema: string;
}

/** The path items of one endpoint, by OpenAPI path (without the context path). */
export function deliveryPaths(def: EndpointDefinition, o: DeliveryPathsOptions): Record<string, PathItem> {
  const base = `${REST_PREFIX}${def.endpointPath}`;
  const id = idOf(def.endpointPath);
  const tags = [def.endpointPath];
  const out: Record<string, PathItem> = {};
  const allowed = (path: string) => o.access.decide(path, 'GET') === 'allow';
  const notes = `Workspace ${def.workspace}, root ${def.rootPath}, depth ${def.depth}.`;
  const node = o.nodeSchema;
  const result = node === 'Node' ? 'QueryResult' : `QueryResult_${node}`;

  // Query nodes answers at the endpoint path and with a trailing slash; rules may allow only one.
  const queryPath = allowed(base) ? base : allowed(`${base}/`) ? `${base}/` : undefined;
  if (queryPath !== undefined) {
    const op: Operation = {
      operationId: `queryNodes_${id}`, summary: 'Query nodes', description: notes, tags,
      parameters: [...pagingParameters(def), ...commonParameters(o.locales)],
      responses: { 200: jsonResponse('A page of matching nodes', result), ...errors(400, 401, 403, 404, 503) },
    };
    out[queryPath] = { get: op };
  }
  if (allowed(`${base}/`)) {
    out[`${base}/{path}`] = {
      get: {
        operationId: `readNode_${id}`, summary: 'Read node', description: notes, tags,
        parameters: [PATH_PARAMETER, query('version', 'A stored version of the node, such as 1.0'), ...commonParameters(o.locales)],
        responses: { 200: jsonResponse('The node with its subtree down to the endpoint\'s depth', node), ...errors(400, 401, 403, 404, 503) },
      },
    };
    out[`${base}/{path}@nodes`] = {
      get: {
        operationId: `getChildren_${id}`, summary: 'Get children', description: notes, tags,
        parameters: [PATH_PARAMETER, ...commonParameters(o.locales)],
        responses: { 200: jsonArrayResponse('The child nodes (of the root: `/@nodes`)', node), ...errors(400, 401, 403, 404, 503) },
      },
    };
  }
  return out;
}
