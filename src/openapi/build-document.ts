// OpenAPI: builds the OpenAPI 3.1 document of what one caller may call, from the current endpoints.
import type { EndpointDefinition } from '../delivery/endpoint-definition.js';
import type { UriAccess } from '../security/uri-permissions.js';
import { errorResponses, SCHEMAS, SECURITY, SECURITY_SCHEMES } from './components.js';
import { deliveryPaths } from './delivery-paths.js';
import type { OpenApiDocument, PathItem } from './document-types.js';
import { MANAGEMENT_TAGS, managementPaths } from './management-paths.js';

export type { OpenApiDocument } from './document-types.js';

export interface DocumentOptions {
  readonly endpoints: readonly EndpointDefinition[];
  /** The caller's URI permissions: operations they deny are left out. */
  readonly access: UriAccess;
  readonly contextPath: string;
  readonly locales: readonly string[];
  readonly publishing: boolean;
  readonly shop: boolean;
  readonly version: string;
}

export function buildOpenApiDocument(o: DocumentOptions): OpenApiDocument {
  const paths: Record<string, PathItem> = {};
  const tags: { name: string; description?: string }[] = [];
  for (const def of o.endpoints) {
    const items = deliveryPaths(def, { access: o.access, locales: o.locales });
    if (Object.keys(items).length === 0) continue;
    tags.push({ name: def.endpointPath, description: `Delivery endpoint of module ${def.module} (${def.kind})` });
    Object.assign(paths, items);
  }
  const management = managementPaths({ access: o.access, publishing: o.publishing, shop: o.shop });
  Object.assign(paths, management.paths);
  tags.push(...MANAGEMENT_TAGS.filter((t) => management.tags.has(t.name)));
  return {
    openapi: '3.1.0',
    info: { title: 'Petal', version: o.version, description: 'The endpoints this caller may call (URI permissions applied).' },
    servers: [{ url: o.contextPath === '' ? '/' : o.contextPath }],
    tags,
    paths,
    components: { schemas: SCHEMAS, responses: errorResponses(), securitySchemes: SECURITY_SCHEMES },
    security: SECURITY,
  };
}
