// HTTP layer: the GraphQL API at `{contextPath}/.graphql` (and under the preview context path, where it
// reads the working content): GET with `query` (or a persisted query's hash in `extensions`),
// `variables`, `operationName`; POST with application/json or application/graphql. The request is
// checked and its document validated (graphql/run-query.ts) before the response-cache policy runs:
// a GET answer is cached, tagged and revalidated like a delivery answer (ETag, 304), a POST is run.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getVariableValues, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { SiteConfig } from '../../config/load-config.js';
import { DEFAULT_LINKS, type LinkConfig } from '../../config/link-config.js';
import type { CacheControlConfig, TagHeader } from '../../config/notify-config.js';
import { GRAPHQL_PATH } from '../../config/api-prefixes.js';
import { PetalError } from '../../errors.js';
import type { GraphqlApi, GraphqlBuild } from '../../graphql/graphql-api.js';
import { resolvePersisted } from '../../graphql/persisted-queries.js';
import { ReadContext, type GraphqlTheme } from '../../graphql/read-context.js';
import { QueryRunner, requestError, type GraphqlAnswer, type GraphqlRequest } from '../../graphql/run-query.js';
import type { Repository } from '../../repository/session.js';
import type { SecurityService } from '../../security/security-service.js';
import { isPreviewRequest, PREVIEW_CACHE_CONTROL } from '../content-state.js';
import { sendError } from '../error-handler.js';
import type { ResponseCache } from '../response-cache.js';
import { ResponseCachePolicy } from '../response-cache-policy.js';
import { sendOutgoing } from '../send-outgoing.js';

/** A GraphQL document or body is text a person wrote: 100 KB is far more than any real one. */
const MAX_BODY_BYTES = 100 * 1024;

export interface GraphqlRouteOptions {
  readonly api: GraphqlApi;
  readonly repository: Repository;
  readonly security: SecurityService;
  readonly site: () => SiteConfig;
  readonly outName: (name: string) => string;
  readonly contextPath: string;
  readonly links?: LinkConfig;
  readonly theme?: () => GraphqlTheme | undefined;
  readonly cache?: ResponseCache | null;
  readonly previewContextPath?: string;
  readonly cacheControl?: CacheControlConfig;
  readonly tagHeader?: TagHeader;
  readonly varyByOrigin?: boolean;
}

class BadRequest extends Error {
  constructor(readonly answer: GraphqlAnswer) {
    super('bad GraphQL request');
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

function sendAnswer(reply: FastifyReply, a: GraphqlAnswer): FastifyReply {
  return reply.code(a.status).header('content-type', JSON_TYPE).send(a.body);
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  throw new BadRequest(requestError(`${name}: give it once, as text`, 'BAD_REQUEST'));
}

/** A JSON object from a GET parameter (`variables`, `extensions`), or an object of a POST body. */
function objectParam(value: unknown, name: string, encoded: boolean): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let v = value;
  if (encoded) {
    try {
      v = JSON.parse(value as string);
    } catch {
      throw new BadRequest(requestError(`${name}: not JSON`, 'BAD_REQUEST'));
    }
    if (v === null) return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BadRequest(requestError(`${name}: expected a JSON object`, 'BAD_REQUEST'));
  return v as Record<string, unknown>;
}

interface Params {
  readonly query: string | undefined;
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
  readonly extensions: Record<string, unknown> | undefined;
}

function paramsOf(request: FastifyRequest): Params {
  if (request.method === 'GET' || request.method === 'HEAD') {
    const q = request.query as Record<string, unknown>;
    return {
      query: single(q.query, 'query'), variables: objectParam(single(q.variables, 'variables'), 'variables', true),
      operationName: single(q.operationName, 'operationName'), extensions: objectParam(single(q.extensions, 'extensions'), 'extensions', true),
    };
  }
  const body = request.body;
  if (typeof body === 'string') return { query: body, variables: undefined, operationName: undefined, extensions: undefined };
  if (Array.isArray(body)) throw new BadRequest(requestError('Batched requests (a JSON array) are not supported: send one request at a time', 'BATCHING_NOT_SUPPORTED'));
  if (typeof body !== 'object' || body === null) throw new BadRequest(requestError('The body is a JSON object with "query" (or application/graphql text)', 'BAD_REQUEST'));
  const b = body as Record<string, unknown>;
  if (b.query !== undefined && typeof b.query !== 'string') throw new BadRequest(requestError('query: expected a string', 'BAD_REQUEST'));
  if (b.operationName !== undefined && b.operationName !== null && typeof b.operationName !== 'string') {
    throw new BadRequest(requestError('operationName: expected a string', 'BAD_REQUEST'));
  }
  return {
    query: b.query as string | undefined, variables: objectParam(b.variables, 'variables', false),
    operationName: (b.operationName as string | null | undefined) ?? undefined, extensions: objectParam(b.extensions, 'extensions', false),
  };
}

interface Prepared {
  readonly build: GraphqlBuild;
  readonly doc: DocumentNode;
  readonly request: GraphqlRequest;
}

/** The request checked through to a validated document and coerced variables, or the 400 to send. */
function prepare(api: GraphqlApi, p: Params, get: boolean): Prepared {
  const build = api.current;
  if ((p.query === undefined || p.query.trim() === '') && p.extensions === undefined) {
    throw new BadRequest(requestError('No query: send the GraphQL document as "query" (or a persisted query\'s hash in "extensions")', 'BAD_REQUEST'));
  }
  const persisted = resolvePersisted({ query: p.query, extensions: p.extensions }, build.persisted, { automatic: api.settings.automaticPersistedQueries });
  if ('error' in persisted) throw new BadRequest(requestError(persisted.error.message, persisted.error.code));
  const doc = build.runner.document(persisted.query);
  if (!('kind' in doc)) throw new BadRequest(doc);
  const op: OperationDefinitionNode | undefined = QueryRunner.operationOf(doc, p.operationName);
  if (op === undefined) {
    throw new BadRequest(requestError(p.operationName === undefined
      ? 'The document holds several operations: name one with operationName' : `No operation named ${JSON.stringify(p.operationName)}`, 'BAD_REQUEST'));
  }
  if (get && op.operation !== 'query') throw new BadRequest(requestError('Only queries may be sent with GET', 'BAD_REQUEST'));
  const coerced = getVariableValues(build.runner.schema, op.variableDefinitions ?? [], p.variables ?? {}, { maxErrors: 10 });
  if ('errors' in coerced && coerced.errors !== undefined) {
    throw new BadRequest({ status: 400, body: JSON.stringify({ errors: coerced.errors.map((e) => ({ ...e.toJSON(), extensions: { code: 'BAD_USER_INPUT' } })) }) });
  }
  return { build, doc, request: { query: persisted.query, variables: p.variables, operationName: p.operationName } };
}

export function registerGraphqlRoutes(app: FastifyInstance, o: GraphqlRouteOptions): void {
  const policy = new ResponseCachePolicy({
    cache: o.cache ?? null, clock: o.repository, securityConfig: () => o.security.config,
    tagHeader: o.tagHeader, cacheControl: o.cacheControl, varyByOrigin: o.varyByOrigin,
  });
  const previewLinks = o.previewContextPath !== undefined ? { ...(o.links ?? DEFAULT_LINKS), contextPath: o.previewContextPath } : undefined;

  const contextFor = (request: FastifyRequest, deps: Parameters<Repository['session']>[1], preview: boolean): ReadContext => {
    const theme = o.theme?.();
    return new ReadContext({
      session: o.repository.session(o.security.readAccess(request.caller), deps, request.contentState),
      site: o.site(), acceptLanguage: request.headers['accept-language'], outName: o.outName,
      links: (preview ? previewLinks : o.links) ?? DEFAULT_LINKS, ...(theme !== undefined ? { theme } : {}),
      maxLimit: o.api.settings.limits.maxListLimit, defaultLimit: o.api.settings.defaultLimit, maxItems: o.api.settings.maxItems,
    });
  };

  const logFor = (request: FastifyRequest) => (err: unknown) => request.log.error({ err }, 'GraphQL: a field failed');

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const get = request.method === 'GET' || request.method === 'HEAD';
    const preview = previewLinks !== undefined && request.contentState === 'working';
    let prepared: Prepared;
    try {
      prepared = prepare(o.api, paramsOf(request), get);
    } catch (err) {
      if (err instanceof BadRequest) return sendAnswer(reply.header('cache-control', 'no-store'), err.answer);
      throw err;
    }
    const { build, doc } = prepared;
    if (!get) {
      // A POST is not cached by anyone (HTTP caches do not keep POST answers): it is run.
      const answer = await build.runner.run(doc, prepared.request, contextFor(request, undefined, preview), logFor(request));
      reply.header('cache-control', preview ? PREVIEW_CACHE_CONTROL : 'no-store');
      return sendAnswer(reply, answer);
    }
    const facts = {
      endpoint: build.endpoint, restPath: GRAPHQL_PATH, canonicalPath: request.canonicalPath, query: request.query as Record<string, string>,
      acceptLanguage: request.headers['accept-language'], site: o.site(), roleKey: request.caller.roleKey,
      anonymous: request.caller.via === 'anonymous', preview: preview || isPreviewRequest(request.raw), traitHeaders: '',
      ifNoneMatch: request.headers['if-none-match'],
    };
    const out = await policy.answer(facts, async (deps) => {
      const ctx = contextFor(request, deps, preview);
      const answer = await build.runner.run(doc, prepared.request, ctx, logFor(request));
      // Not an answer to keep: a store that could not be reached (503, or a stale answer) or a failure (500).
      if (answer.failures !== undefined && answer.failures.length > 0) throw answer.failures[0];
      // Variables were coerced already; only an operation that cannot run at all gets here with a 400.
      if (answer.status !== 200) throw new PetalError('badRequest', JSON.parse(answer.body).errors?.[0]?.message ?? 'bad GraphQL request');
      return { body: answer.body, contentLanguage: ctx.locale(undefined).locale };
    });
    return sendOutgoing(reply, out);
  };

  const url = `${o.contextPath}${GRAPHQL_PATH}`;
  void app.register(async (scope) => {
    // The raw document as the body (the original accepts it): text, within the route's byte limit.
    scope.addContentTypeParser('application/graphql', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => done(null, body));
    scope.route({ method: ['GET', 'POST'], url, handler, bodyLimit: MAX_BODY_BYTES });
    scope.route({
      method: ['PUT', 'DELETE', 'PATCH'], url,
      handler: async (_request, reply) => sendError(reply.header('allow', 'GET, HEAD, POST'), 'methodNotAllowed', 'The GraphQL API answers GET and POST'),
    });
  });
}
