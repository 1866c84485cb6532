// HTTP layer: the delivery API routes under `/.rest/`. Decodes the URL, finds the endpoint, hands the
// request to delivery/, and writes its JSON; other methods than GET/HEAD answer 405.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PetalError } from '../../errors.js';
import type { SiteConfig } from '../../config/load-config.js';
import { compileEndpoint } from '../../delivery/compile-endpoint.js';
import { getChildren, queryNodes, readNode, type DeliveryEnv, type DeliveryResponse } from '../../delivery/deliver.js';
import type { EndpointRegistry } from '../../delivery/endpoint-registry.js';
import { parseMethod, type QueryParams } from '../../delivery/parse-request.js';
import type { Repository } from '../../repository/session.js';
import { sendError } from '../error-handler.js';
import type { SecurityService } from '../../security/security-service.js';
import type { LinkConfig } from '../../delivery/links.js';
import type { ThemeInfo } from '../../delivery/resolvers/reference-renderer.js';
import { LIMITS } from '../limits.js';

export interface DeliveryRouteOptions {
  readonly registry: EndpointRegistry;
  readonly repository: Repository;
  readonly security: SecurityService;
  readonly site: () => SiteConfig;
  readonly outName: (name: string) => string;
  readonly contextPath: string;
  readonly links?: LinkConfig;
  readonly theme?: () => ThemeInfo | undefined;
}

const REST_PREFIX = '/.rest';

/** The path after `/.rest` of a canonical path (see security/canonical-path: decoded exactly once). */
export function restPathOf(canonical: string): string {
  const rest = canonical.slice(REST_PREFIX.length);
  return rest === '' ? '/' : rest;
}

export function registerDeliveryRoutes(app: FastifyInstance, o: DeliveryRouteOptions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const restPath = restPathOf(request.canonicalPath);
    // `{endpoint}@nodes` (without the slash) is not served: URI rules see the path as written, and
    // it must not reach what `{endpoint}/@nodes` reaches under other rules.
    const match = o.registry.match(restPath);
    const rest = match?.rest;
    if (match === undefined || rest === undefined) {
      return sendError(reply, 'notFound', `No endpoint at ${REST_PREFIX}${restPath}`);
    }
    const endpoint = compileEndpoint(match.definition, o.repository.types);
    const method = parseMethod(rest);
    // bypassWorkspaceAcls skips workspace permissions for this endpoint only; URI rules already ran.
    const session = endpoint.definition.bypassWorkspaceAcls
      ? o.repository.systemSession()
      : o.repository.session(o.security.readAccess(request.caller));
    const theme = o.theme?.();
    const env: DeliveryEnv = {
      session, site: o.site(), outName: o.outName,
      ...(o.links !== undefined ? { links: o.links } : {}), ...(theme !== undefined ? { theme } : {}),
    };
    const query = request.query as QueryParams;
    let values = 0;
    for (const key in query) {
      const v = query[key];
      values += Array.isArray(v) ? v.length : 1;
    }
    if (values > LIMITS.maxQueryParams) {
      throw new PetalError('badRequest', `At most ${LIMITS.maxQueryParams} query parameters`);
    }
    const acceptLanguage = request.headers['accept-language'];
    let result: DeliveryResponse;
    switch (method.kind) {
      case 'read':
        result = await readNode({ endpoint, path: method.path, query, acceptLanguage }, env);
        break;
      case 'children':
        result = await getChildren({ endpoint, path: method.path, query, acceptLanguage }, env);
        break;
      case 'query':
        result = await queryNodes({ endpoint, path: '/', query, acceptLanguage }, env);
        break;
    }
    reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-language', result.contentLanguage.replace('_', '-'));
    const ttl = endpoint.definition.timeToLive;
    // Answers for signed-in callers must never be stored by shared caches.
    if (ttl !== undefined) reply.header('cache-control', request.caller.via === 'anonymous' ? `max-age=${ttl}` : `private, max-age=${ttl}`);
    return reply.send(result.body);
  };

  const prefix = `${o.contextPath}${REST_PREFIX}`;
  app.get(`${prefix}/*`, handler);
  app.get(prefix, handler);
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'GET, HEAD');
    return sendError(reply, 'methodNotAllowed', 'The delivery API is read-only: use GET');
  };
  for (const url of [`${prefix}/*`, prefix]) {
    app.route({ method: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url, handler: notAllowed });
  }
}
