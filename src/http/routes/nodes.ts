// HTTP layer: `GET {contextPath}/.rest/nodes/v1/{workspace}{path}`, the read half of the original's Nodes
// API: a node (and its descendants down to `depth`) in repository form, read through the caller's
// session (a node they may not read is a 404 and never a child). The URI permissions of the security
// hook apply first (built-in roles give this URL to `superuser` only). Writes: nodes-write.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NODES_PREFIX } from '../../config/api-prefixes.js';
import type { NodeRecord } from '../../store/rows.js';
import { toCanonicalName } from '../../model/names.js';
import { readNodeTree } from '../../nodes-api/read-node-tree.js';
import { repositoryNode, type RenderOptions, type RepositoryNode } from '../../nodes-api/repository-node.js';
import { sendError } from '../error-handler.js';
import { ifNoneMatchHits } from '../etag.js';
import { nodeEtag } from './nodes-etag.js';
import { nodeTargetOrError, type NodesRouteOptions } from './nodes-target.js';
import { nodesWriteHandler } from './nodes-write.js';
import { WRITE_LIMITS } from '../../nodes-api/parse-node-body.js';
import { JSON_BODY_LIMITS } from '../limits.js';

export const MAX_NODES_DEPTH = 10;
export const MAX_NODES_PER_ANSWER = 10_000;
export const MAX_EXCLUDED_TYPES = 50;

interface NodesQuery {
  readonly depth: number;
  readonly excludeTypes: ReadonlySet<string>;
  readonly includeMetadata: boolean;
}

/** The parsed query, or the message of a 400 naming the parameter. */
function parseQuery(q: Record<string, unknown>): NodesQuery | string {
  const { depth: rawDepth, excludeNodeTypes: rawTypes, includeMetadata: rawMeta } = q;
  let depth = 0;
  if (rawDepth !== undefined) {
    if (typeof rawDepth !== 'string' || !/^\d{1,3}$/.test(rawDepth) || Number(rawDepth) > MAX_NODES_DEPTH) {
      return `Parameter "depth" must be an integer from 0 to ${MAX_NODES_DEPTH}, not ${JSON.stringify(rawDepth)}`;
    }
    depth = Number(rawDepth);
  }
  const lists = rawTypes === undefined ? [] : Array.isArray(rawTypes) ? rawTypes : [rawTypes];
  if (!lists.every((l): l is string => typeof l === 'string')) return 'Parameter "excludeNodeTypes" must be a comma-separated list of node types';
  const names = lists.flatMap((l) => l.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  if (names.length > MAX_EXCLUDED_TYPES) return `Parameter "excludeNodeTypes" may name at most ${MAX_EXCLUDED_TYPES} node types, not ${names.length}`;
  if (rawMeta !== undefined && rawMeta !== 'true' && rawMeta !== 'false') {
    return `Parameter "includeMetadata" must be true or false, not ${JSON.stringify(rawMeta)}`;
  }
  return { depth, excludeTypes: new Set(names.map(toCanonicalName)), includeMetadata: rawMeta === 'true' };
}

function assemble(node: NodeRecord, children: ReadonlyMap<string, NodeRecord[]>, o: RenderOptions): RepositoryNode {
  const mine = children.get(node.path);
  return repositoryNode(node, o, mine?.map((c) => assemble(c, children, o)));
}

export function registerNodesRoutes(app: FastifyInstance, o: NodesRouteOptions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const target = nodeTargetOrError(request, reply);
    if (target === undefined) return reply;
    const { workspace, path } = target;
    const query = parseQuery(request.query as Record<string, unknown>);
    if (typeof query === 'string') return sendError(reply, 'invalidParameter', query);
    const session = o.repository.session(o.security.readAccess(request.caller));
    const read = await readNodeTree(
      session,
      { workspace, path, depth: query.depth, excludeTypes: query.excludeTypes, maxNodes: MAX_NODES_PER_ANSWER },
      async () => (await o.repository.store.reads.listWorkspaces()).includes(workspace),
    );
    if (!read.ok) {
      return read.problem === 'missing'
        ? sendError(reply, 'pathNotFound', `No node at ${path} in workspace ${workspace}`)
        : sendError(reply, 'invalidParameter', `Parameter "depth": the answer would hold more than ${MAX_NODES_PER_ANSWER} nodes; ask a smaller depth or a deeper path`);
    }
    const body = JSON.stringify(assemble(read.root, read.children, { outName: o.outName, includeMetadata: query.includeMetadata }));
    const etag = nodeEtag(read.root, body);
    // A management API: what a caller reads is theirs alone and changes with every write.
    reply.header('etag', etag).header('cache-control', 'private, no-cache').header('x-content-type-options', 'nosniff');
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.header('content-type', 'application/json; charset=utf-8').send(body);
  };
  const prefix = `${o.contextPath}${NODES_PREFIX}`;
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    sendError(reply.header('allow', 'GET, HEAD, PUT, POST, DELETE'), 'methodNotAllowed', 'The Nodes API reads with GET, creates with PUT, updates with POST and deletes with DELETE');
  const write = nodesWriteHandler(o);
  const jsonBody = { ...JSON_BODY_LIMITS, maxItems: WRITE_LIMITS.maxJsonItems };
  for (const url of [prefix, `${prefix}/*`]) {
    app.get(url, handler);
    app.route({ method: ['POST', 'PUT', 'DELETE'], url, handler: write, bodyLimit: WRITE_LIMITS.maxBodyBytes, config: { jsonBody } });
    app.route({ method: ['PATCH', 'OPTIONS'], url, handler: notAllowed });
  }
}
