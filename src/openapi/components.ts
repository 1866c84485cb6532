// OpenAPI: the shared parts of the document (node and result schemas, the error table, security schemes).
import { ERRORS, type ErrorCode } from '../errors.js';
import { SESSION_COOKIE } from '../security/security-service.js';
import type { Json, Responses } from './document-types.js';

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A node as every delivery endpoint renders it: the `@` keys, then properties and child nodes by name. */
const NODE: Json = {
  type: 'object',
  required: ['@name', '@path', '@id', '@nodeType'],
  properties: {
    '@name': { type: 'string' },
    '@path': { type: 'string', description: 'Path relative to the endpoint\'s rootPath' },
    '@id': { type: 'string', description: 'The node\'s identifier (UUID)' },
    '@nodeType': { type: 'string', examples: ['cms:page'] },
    '@nodes': { type: 'array', items: { type: 'string' }, description: 'Names of the child nodes, in order; each is also a key of this object' },
  },
  // Properties and child nodes are named by the content, so any other key may appear.
  additionalProperties: true,
};

/** `{total, offset, limit, results}`, the results of the given node schema. */
export function queryResultSchema(nodeSchema: string): Json {
  return {
    type: 'object',
    required: ['total', 'offset', 'limit', 'results'],
    properties: {
      total: { type: 'integer', minimum: 0, description: 'Matching nodes, all pages together' },
      offset: { type: 'integer', minimum: 0 },
      limit: { type: 'integer', minimum: 1 },
      results: { type: 'array', items: ref(nodeSchema) },
    },
  };
}

const ERROR: Json = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', enum: Object.keys(ERRORS) }, message: { type: 'string' } },
    },
  },
};

/** Free-form JSON for the management APIs, whose bodies are described in words only. */
const ANY_OBJECT: Json = { type: 'object', additionalProperties: true };

export const SECURITY_SCHEMES: Json = {
  basic: { type: 'http', scheme: 'basic' },
  bearer: { type: 'http', scheme: 'bearer', description: 'An API token (`petal token create`)' },
  session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Set by POST /.auth/login' },
};

/** Every way of calling with credentials, or none (an operation the anonymous caller may call too). */
export const SECURITY: readonly Json[] = [{}, { basic: [] }, { bearer: [] }, { session: [] }];

export const SCHEMAS: Readonly<Record<string, Json>> = { Node: NODE, QueryResult: queryResultSchema('Node'), Error: ERROR, AnyObject: ANY_OBJECT };

/** Shared responses: one per status of the error table, listing the codes answered with it. */
export function errorResponses(): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [code, e] of Object.entries(ERRORS) as [ErrorCode, (typeof ERRORS)[ErrorCode]][]) {
    byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[`E${status}`] = {
      description: `Error (codes: ${codes.join(', ')})`,
      content: { 'application/json': { schema: ref('Error') } },
    };
  }
  return out;
}

/** References to the shared error responses of the given statuses. */
export function errors(...statuses: number[]): Responses {
  const out: Record<string, Json> = {};
  for (const s of statuses) out[String(s)] = { $ref: `#/components/responses/E${s}` };
  return out;
}

export function jsonResponse(description: string, schemaName: string): Json {
  return { description, content: { 'application/json': { schema: ref(schemaName) } } };
}

export function jsonArrayResponse(description: string, schemaName: string): Json {
  return { description, content: { 'application/json': { schema: { type: 'array', items: ref(schemaName) } } } };
}
