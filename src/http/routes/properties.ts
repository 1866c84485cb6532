// HTTP layer: the original's Properties API, `{contextPath}/.rest/properties/v1/{workspace}{path}`, over
// the Nodes API's read and write paths: GET a property (`{path}` = node path + `/` + property name) in
// repository form; PUT / POST `{node path}?name=&value=&type=&multiple=` set one property; DELETE a
// property. Reads go through the caller's session, writes through the store's nodes write (one
// transaction, maintained system properties, change event, workspace permissions, If-Match).
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../../model/names.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PetalError } from '../../errors.js';
import { checkName, parseProperty } from '../../nodes-api/parse-node-body.js';
import { repositoryProperties, type RepositoryProperty } from '../../nodes-api/repository-node.js';
import { nameOf, normalizePath, parentOf } from '../../model/paths.js';
import { isMaintained } from '../../repository/maintained-properties.js';
import { writeNodes } from '../../repository/writes.js';
import type { NodeRecord } from '../../store/rows.js';
import { PROPERTIES_PREFIX } from '../../config/api-prefixes.js';
import { sendError } from '../error-handler.js';
import { segmentsAfter } from './dam.js';
import { ifMatchCondition } from './nodes-etag.js';
import type { NodesRouteOptions } from './nodes-target.js';

/** Set on a node by the Nodes API (type, mixins, identifier), never as properties. */
const NODE_FIELDS: ReadonlySet<string> = new Set(['jcr:primaryType', 'jcr:mixinTypes', 'jcr:uuid']);

function target(request: FastifyRequest): { workspace: string; path: string } {
  const segments = segmentsAfter(request.canonicalPath, PROPERTIES_PREFIX);
  if (segments === undefined || segments.length < 2) {
    throw new PetalError('pathNotFound', `Name a workspace and a path: ${PROPERTIES_PREFIX}/{workspace}{path}`);
  }
  const [workspace, ...rest] = segments as [string, ...string[]];
  if (!isWorkspaceName(workspace)) throw new PetalError('badRequest', `Workspace ${JSON.stringify(workspace)}: ${WORKSPACE_NAME_RULE}`);
  const path = normalizePath(`/${rest.join('/')}`);
  if (path === undefined) throw new PetalError('badRequest', 'Malformed path');
  return { workspace, path };
}

function propertyOf(node: NodeRecord, name: string, o: NodesRouteOptions): RepositoryProperty | undefined {
  const outName = o.outName(name);
  return repositoryProperties(node, { outName: o.outName, includeMetadata: true }).find((p) => p.name === outName);
}

function sendProperty(reply: FastifyReply, property: RepositoryProperty): FastifyReply {
  return reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff')
    .header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(property));
}

/**
 * `name`, `value` (repeated for several), `type` (default String), `multiple` (default false) of a PUT
 * or POST. A property Petal maintains is refused (400 naming `name`), never silently left unwritten.
 */
function propertyFromQuery(query: Record<string, unknown>, publishing: boolean) {
  const one = (key: string): string | undefined => {
    const v = query[key];
    if (v === undefined || typeof v === 'string') return v;
    throw new PetalError('invalidParameter', `Parameter "${key}" is given once`);
  };
  const multiple = one('multiple');
  if (multiple !== undefined && multiple !== 'true' && multiple !== 'false') throw new PetalError('invalidParameter', `Parameter "multiple" must be true or false, not ${JSON.stringify(multiple)}`);
  const value = query.value;
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const raw = { name: one('name') ?? '', type: one('type') ?? 'String', multiple: multiple === 'true', values };
  const property = parseProperty(raw, (k, i) => (k !== 'values' ? k : i === undefined ? 'value' : `value[${i}]`));
  if (NODE_FIELDS.has(property[0])) throw new PetalError('invalidField', `name: ${property[0]} is set through the Nodes API (type, mixins, identifier)`);
  if (isMaintained(property[0], publishing)) throw new PetalError('invalidField', `name: ${property[0]} is maintained by Petal and cannot be set`);
  return property;
}

export function registerPropertiesRoutes(app: FastifyInstance, o: NodesRouteOptions): void {
  const read = async (request: FastifyRequest, reply: FastifyReply) => {
    const { workspace, path } = target(request);
    const session = o.repository.session(o.security.readAccess(request.caller));
    const node = path === '/' ? undefined : await session.getNode(workspace, parentOf(path));
    const property = node === undefined ? undefined : propertyOf(node, checkName(nameOf(path), 'path'), o);
    if (property === undefined) return sendError(reply, 'pathNotFound', `No property at ${path} in workspace ${workspace}`);
    return sendProperty(reply, property);
  };
  const write = async (request: FastifyRequest, reply: FastifyReply) => {
    const { workspace, path } = target(request);
    const remove = request.method === 'DELETE';
    const nodePath = remove ? parentOf(path) : path;
    if (nodePath === '/') throw new PetalError('badRequest', 'The root of a workspace has no properties to write');
    const property = remove ? undefined : propertyFromQuery(request.query as Record<string, unknown>, o.publishing === true);
    const removed = remove ? checkName(nameOf(path), 'path') : undefined;
    const ifMatch = ifMatchCondition(request.headers['if-match'], nodePath);
    const result = await writeNodes(o.repository.store, workspace, [{
      op: 'update', path: nodePath,
      node: { name: nameOf(nodePath), properties: property === undefined ? [] : [property], children: [], field: '' },
      ...(removed !== undefined ? { remove: [removed] } : {}),
    }], {
      by: request.caller.user ?? 'anonymous',
      guard: o.security.writeAccess(request.caller),
      ...(o.publishing === true ? { publishing: true } : {}),
      ...(ifMatch !== undefined ? { ifMatch } : {}),
    });
    const written = property === undefined || result.node === undefined ? undefined : propertyOf(result.node, property[0], o);
    if (written === undefined) return reply.header('cache-control', 'no-store').code(200).send();
    return sendProperty(reply, written);
  };
  const prefix = `${o.contextPath}${PROPERTIES_PREFIX}`;
  for (const url of [prefix, `${prefix}/*`]) {
    app.get(url, read);
    app.route({ method: ['PUT', 'POST', 'DELETE'], url, handler: write });
    app.route({
      method: ['PATCH', 'OPTIONS'], url,
      handler: async (_request, reply) => sendError(reply.header('allow', 'GET, HEAD, PUT, POST, DELETE'), 'methodNotAllowed', 'The Properties API reads with GET and writes with PUT, POST and DELETE'),
    });
  }
}
