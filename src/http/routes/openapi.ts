// HTTP layer: `GET /.rest/openapi.json` and `.yaml`, the OpenAPI document of what the caller may call.
// Built from the current endpoints, so a reload shows at once; kept per endpoint snapshot and role set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'yaml';
import { packageRoot, type SiteConfig } from '../../config/load-config.js';
import type { EndpointDefinition } from '../../delivery/endpoint-definition.js';
import type { EndpointRegistry } from '../../delivery/endpoint-registry.js';
import { buildOpenApiDocument, type OpenApiDocument } from '../../openapi/build-document.js';
import { loadContentTypes, type ContentType } from '../../openapi/content-types.js';
import type { SecurityService } from '../../security/security-service.js';
import type { UriAccess } from '../../security/uri-permissions.js';
import { etagOf, ifNoneMatchHits } from '../etag.js';

export const OPENAPI_PATHS = { json: '/.rest/openapi.json', yaml: '/.rest/openapi.yaml' } as const;

export interface OpenApiRouteOptions {
  readonly registry: EndpointRegistry;
  readonly security: SecurityService;
  readonly site: () => SiteConfig;
  readonly contextPath: string;
  readonly publishing: boolean;
  readonly shop: boolean;
  /** Light-modules folders: their content types give the endpoints on their workspaces typed nodes. */
  readonly moduleRoots?: readonly string[];
}

interface Rendered {
  readonly json: string;
  readonly yaml: string;
}

function petalVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function registerOpenApiRoutes(app: FastifyInstance, o: OpenApiRouteOptions): void {
  const version = petalVersion();
  // The registry's list and a role set's compiled rules are replaced (never changed) on reload, so
  // their identities key the cache and a reload of either misses it.
  const cache = new WeakMap<readonly EndpointDefinition[], WeakMap<UriAccess, Rendered>>();
  // Content types are read again with each new endpoint snapshot (a reload of the definitions).
  const contentTypes = new WeakMap<readonly EndpointDefinition[], readonly ContentType[]>();
  const typesFor = (endpoints: readonly EndpointDefinition[]): readonly ContentType[] => {
    let types = contentTypes.get(endpoints);
    if (types === undefined) contentTypes.set(endpoints, (types = loadContentTypes(o.moduleRoots ?? [])));
    return types;
  };
  const documentFor = (request: FastifyRequest): Rendered => {
    const endpoints = o.registry.list();
    const access = o.security.uriAccess(request.caller);
    let byAccess = cache.get(endpoints);
    if (byAccess === undefined) cache.set(endpoints, (byAccess = new WeakMap()));
    let hit = byAccess.get(access);
    if (hit === undefined) {
      const doc: OpenApiDocument = buildOpenApiDocument({
        endpoints, access, contextPath: o.contextPath, locales: o.site().locales,
        publishing: o.publishing, shop: o.shop, version, contentTypes: typesFor(endpoints),
      });
      hit = { json: JSON.stringify(doc), yaml: stringify(doc, { aliasDuplicateObjects: false }) };
      byAccess.set(access, hit);
    }
    return hit;
  };
  const send = (format: keyof Rendered, type: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const body = documentFor(request)[format];
    const etag = etagOf(body);
    reply.headers({ etag, 'cache-control': 'private, no-cache', vary: 'Authorization, Cookie' });
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.header('content-type', type).send(body);
  };
  app.get(o.contextPath + OPENAPI_PATHS.json, send('json', 'application/json; charset=utf-8'));
  app.get(o.contextPath + OPENAPI_PATHS.yaml, send('yaml', 'application/yaml; charset=utf-8'));
}
