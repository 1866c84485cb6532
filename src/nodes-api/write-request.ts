// Nodes API: one write request as the HTTP layer hands it over (PUT creates a child of the path from a
// node in repository form, POST updates the node and/or moves or orders it with `moveTo` /
// `orderBefore`, DELETE removes it with its subtree), turned into the repository's operations and
// written in one transaction (repository/writes.ts). Every body error is thrown before the store is
// asked; a refusal of the rules is a NodeWriteError.
import { PetalError } from '../errors.js';
import { caseVariantOf } from '../model/names.js';
import { normalizePath } from '../model/paths.js';
import type { NodeOperation, NodeWriteOptions, NodeWriteResult } from '../repository/node-write.js';
import { writeNodes } from '../repository/writes.js';
import type { ContentStore } from '../store/content-store.js';
import { checkName, parseNodeBody } from './parse-node-body.js';

export interface NodesWriteRequest {
  readonly method: 'PUT' | 'POST' | 'DELETE';
  readonly workspace: string;
  readonly path: string;
  /** The parsed JSON body; undefined, null or '' when none was sent. */
  readonly body: unknown;
  /** POST's query parameters, as sent. */
  readonly moveTo?: string;
  readonly orderBefore?: string;
}

export async function writeNodesRequest(store: ContentStore, r: NodesWriteRequest, options: NodeWriteOptions): Promise<NodeWriteResult> {
  const ops = operations(r);
  if (r.method === 'PUT' && r.path === '/') await refuseCaseVariant(store, r.workspace);
  return writeNodes(store, r.workspace, ops, options);
}

function operations(r: NodesWriteRequest): NodeOperation[] {
  const path = r.path;
  if (r.method === 'PUT') return [{ op: 'create', parentPath: path, node: parseNodeBody(r.body, { parentPath: path }) }];
  if (path === '/') throw new PetalError('badRequest', 'The root of a workspace is not updated, moved or deleted');
  if (r.method === 'DELETE') return [{ op: 'delete', path }];
  return postOperations(r);
}

/** The operations of a POST: an update from the body, then a move from `moveTo` / `orderBefore`. */
function postOperations(r: NodesWriteRequest): NodeOperation[] {
  const { path, moveTo: rawTo, orderBefore: rawBefore } = r;
  const ops: NodeOperation[] = [];
  if (r.body !== undefined && r.body !== null && r.body !== '') {
    ops.push({ op: 'update', path, node: parseNodeBody(r.body, { nodePath: path }) });
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

/** A PUT at `/` may create a workspace: not one whose name differs from an existing one's only by case. */
async function refuseCaseVariant(store: ContentStore, workspace: string): Promise<void> {
  const existing = await store.reads.listWorkspaces();
  const other = existing.includes(workspace) ? undefined : caseVariantOf(workspace, existing);
  if (other !== undefined) throw new PetalError('badRequest', `Workspace ${JSON.stringify(workspace)}: differs only by case from the workspace ${other}`);
}
