// OpenAPI: builds the OpenAPI 3.1 document of what one caller may call, from the current endpoints.
import type { EndpointDefinition } from '../delivery/endpoint-definition.js';
import type { UriAccess } from '../security/uri-permissions.js';
import { errorResponses, queryResultSchema, SCHEMAS, SECURITY, SECURITY_SCHEMES } from './components.js';
import { contentTypeSchema, schemaNameOf, type ContentType } from './content-types.js';
import { deliveryPaths } from './delivery-paths.js';
import type { Json, OpenApiDocument, PathItem } from './document-types.js';
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
  /** Content types of the light modules: endpoints on their workspaces get their schemas. */
  readonly contentTypes?: readonly ContentType[];
}

/**
 * The node schema of each workspace that has content types: the type's own, or (several types in one
 * workspace) any of them. Only the schemas of listed endpoints are added to `schemas`.
 */
function nodeSchemas(types: readonly ContentType[]): Map<string, { name: string; schemas: Record<string, Json> }> {
  const byWorkspace = new Map<string, ContentType[]>();
  for (const t of types) byWorkspace.set(t.workspace, [...(byWorkspace.get(t.workspace) ?? []), t]);
  const out = new Map<string, { name: string; schemas: Record<string, Json> }>();
  for (const [workspace, list] of byWorkspace) {
    const schemas: Record<string, Json> = {};
    for (const t of list) schemas[schemaNameOf(t)] = contentTypeSchema(t);
    const names = Object.keys(schemas);
    const name = names.length === 1 ? names[0]! : `workspace_${workspace.replace(/[^A-Za-z0-9._-]/g, '_')}`;
    if (names.length > 1) schemas[name] = { anyOf: names.map((n) => ({ $ref: `#/components/schemas/${n}` })) };
    schemas[`QueryResult_${name}`] = queryResultSchema(name);
    out.set(workspace, { name, schemas });
  }
  return out;
}

export function buildOpenApiDocument(o: DocumentOptions): OpenApiDocument {
  const paths: Record<string, PathItem> = {};
  const tags: { name: string; description?: string }[] = [];
  const typed = nodeSchemas(o.contentTypes ?? []);
  const schemas: Record<string, Json> = { ...SCHEMAS };
  for (const def of o.endpoints) {
    const own = typed.get(def.workspace);
    const items = deliveryPaths(def, { access: o.access, locales: o.locales, nodeSchema: own?.name ?? 'Node' });
    if (Object.keys(items).length === 0) continue;
    if (own !== undefined) Object.assign(schemas, own.schemas);
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
    components: { schemas, responses: errorResponses(), securitySchemes: SECURITY_SCHEMES },
    security: SECURITY,
  };
}
