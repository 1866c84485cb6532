// HTTP layer: the write half of the Nodes API under `{contextPath}/.rest/nodes/v1/{workspace}{path}`, as
// the original has it: PUT creates a child of the path from a node in repository form (its `nodes` too),
// POST updates the node at the path (properties given are set or added, others stay; child nodes given
// are updated or created), DELETE removes the node and its subtree. Petal's own form moves, renames and
// orders: `POST {path}?moveTo={new absolute path}` and/or `?orderBefore={sibling name}`.
// The security hook has applied the URI rules (getAndPost) and the CSRF rule; the workspace rules are
// decided inside the store's transaction (a node the caller may not read is missing, also here).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PetalError } from '../../errors.js';
import { parseNodeBody, checkName } from '../../nodes-api/parse-node-body.js';
import { repositoryNode } from '../../nodes-api/repository-node.js';
import { caseVariantOf } from '../../model/names.js';
import { normalizePath } from '../../model/paths.js';
import type { NodeOperation } from '../../repository/node-write.js';
import { writeNodes } from '../../repository/writes.js';
import type { NodeRecord } from '../../store/rows.js';
import { ifMatchCondition, nodeEtag } from './nodes-etag.js';
import { nodeTargetOrError, type NodesRouteOptions } from './nodes-target.js';

function queryParameter(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new PetalError('invalidParameter', `Parameter "${name}" is given once`);
  return v;
}

/** The operations of a POST: an update from the body, then a move from `moveTo` / `orderBefore`. */
function postOperations(request: FastifyRequest, path: string): NodeOperation[] {
  const query = request.query as Record<string, unknown>;
  const rawTo = queryParameter(query, 'moveTo');
  const rawBefore = queryParameter(query, 'orderBefore');
  const ops: NodeOperation[] = [];
  if (request.body !== undefined && request.body !== null && request.body !== '') {
    ops.push({ op: 'update', path, node: parseNodeBody(request.body, { nodePath: path }) });
  }
  if (rawTo !== undefined || rawBefore !== undefined) {
    let to = path;
    if (rawTo !== undefined) {
      const normalized = rawTo.startsWith('/') ? normalizePath(rawTo) : undefined;
      if (normalized === undefined || normalized === '/') throw new PetalError('invalidParameter', `Parameter "moveTo" must be an absolute node path, not ${JSON.stringify(rawTo)}`);
      checkName(normalized.slice(normalized.lastIndexOf('/') + 1), 'moveTo');
      to = normalized;
    }
    const before = rawBefore === undefined ? undefined : checkName(rawBefore, 'orderBefore');
    ops.push({ op: 'move', path, to, ...(before !== undefined ? { before } : {}) });
  }
  if (ops.length === 0) throw new PetalError('badRequest', 'A POST sends a node in repository form (JSON), or moveTo / orderBefore');
  return ops;
}

function operations(request: FastifyRequest, path: string): NodeOperation[] {
  if (request.method === 'PUT') return [{ op: 'create', parentPath: path, node: parseNodeBody(request.body, { parentPath: path }) }];
  if (path === '/') throw new PetalError('badRequest', 'The root of a workspace is not updated, moved or deleted');
  if (request.method === 'DELETE') return [{ op: 'delete', path }];
  return postOperations(request, path);
}

/** A PUT at `/` may create a workspace: not one whose name differs from an existing one's only by case. */
async function refuseCaseVariant(o: NodesRouteOptions, workspace: string): Promise<void> {
  const existing = await o.repository.store.reads.listWorkspaces();
  const other = existing.includes(workspace) ? undefined : caseVariantOf(workspace, existing);
  if (other !== undefined) throw new PetalError('badRequest', `Workspace ${JSON.stringify(workspace)}: differs only by case from the workspace ${other}`);
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
    const ops = operations(request, path); // every body error is thrown here, before the store is asked
    if (request.method === 'PUT' && path === '/') await refuseCaseVariant(o, workspace);
    const ifMatch = ifMatchCondition(request.headers['if-match'], path);
    // A refusal (NodeWriteError) propagates to the error handler, which answers its code.
    const result = await writeNodes(o.repository.store, workspace, ops, {
      by: request.caller.user ?? 'anonymous',
      guard: o.security.writeAccess(request.caller),
      ...(o.publishing === true ? { publishing: true } : {}),
      ...(ifMatch !== undefined ? { ifMatch } : {}),
    });
    if (result.node === undefined) return reply.header('cache-control', 'no-store').code(200).send();
    return sendNode(reply, result.node, o);
  };
}

