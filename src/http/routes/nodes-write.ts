// HTTP layer: the write half of the Nodes API under `{contextPath}/.rest/nodes/v1/{workspace}{path}`, as
// the original has it: PUT creates a child of the path from a node in repository form (its `nodes` too),
// POST updates the node at the path (properties given are set or added, others stay; child nodes given
// are updated or created), DELETE removes the node and its subtree. Petal's own form moves, renames and
// orders: `POST {path}?moveTo={new absolute path}` and/or `?orderBefore={sibling name}`.
// The security hook has applied the URI rules (getAndPost) and the CSRF rule; the workspace rules are
// decided inside the store's transaction (a node the caller may not read is missing, also here).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PetalError } from '../../errors.js';
import { repositoryNode } from '../../nodes-api/repository-node.js';
import { writeNodesRequest, type NodesWriteRequest } from '../../nodes-api/write-request.js';
import type { NodeRecord } from '../../store/rows.js';
import { ifMatchCondition, nodeEtag } from './nodes-etag.js';
import { nodeTargetOrError, type NodesRouteOptions } from './nodes-target.js';

function queryParameter(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new PetalError('invalidParameter', `Parameter "${name}" is given once`);
  return v;
}

/** The node as a GET at depth 0 answers it, with the same ETag. */
function sendNode(reply: FastifyReply, node: NodeRecord, o: NodesRouteOptions): FastifyReply {
  const body = JSON.stringify(repositoryNode(node, { outName: o.outName, includeMetadata: false }));
  return reply.header('etag', nodeEtag(node, body)).header('cache-control', 'no-store').header('x-content-type-options', 'nosniff')
    .header('content-type', 'application/json; charset=utf-8').send(body);
}

export function nodesWriteHandler(o: NodesRouteOptions) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const target = nodeTargetOrError(request, reply);
    if (target === undefined) return reply;
    const { workspace, path } = target;
    const query = request.query as Record<string, unknown>;
    const moveTo = queryParameter(query, 'moveTo');
    const orderBefore = queryParameter(query, 'orderBefore');
    const ifMatch = ifMatchCondition(request.headers['if-match'], path);
    // A refusal (NodeWriteError) propagates to the error handler, which answers its code.
    const write = {
      method: request.method as NodesWriteRequest['method'], workspace, path, body: request.body,
      ...(moveTo !== undefined ? { moveTo } : {}), ...(orderBefore !== undefined ? { orderBefore } : {}),
    };
    const result = await writeNodesRequest(o.repository.store, write, {
      by: request.caller.user ?? 'anonymous',
      guard: o.security.writeAccess(request.caller),
      ...(o.publishing === true ? { publishing: true } : {}),
      ...(ifMatch !== undefined ? { ifMatch } : {}),
    });
    if (result.node === undefined) return reply.header('cache-control', 'no-store').code(200).send();
    return sendNode(reply, result.node, o);
  };
}

