// HTTP layer: what the Nodes API's read and write handlers share: their options, and the workspace and
// node path a `{contextPath}/.rest/nodes/v1/{workspace}{path}` URL names.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NODES_PREFIX } from '../../config/api-prefixes.js';
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../../model/names.js';
import { normalizePath } from '../../model/paths.js';
import type { Repository } from '../../repository/session.js';
import type { SecurityService } from '../../security/security-service.js';
import { sendError } from '../error-handler.js';
import { segmentsAfter } from './dam.js';

export interface NodesRouteOptions {
  readonly repository: Repository;
  readonly security: SecurityService;
  readonly contextPath: string;
  readonly outName: (name: string) => string;
  /** Publishing is on: writes maintain the activation status (NodeWriteOptions.publishing). */
  readonly publishing?: boolean;
}

/** The URL's node target, or undefined once the error (404 without one, 400 for a malformed path) is sent. */
export function nodeTargetOrError(request: FastifyRequest, reply: FastifyReply): { workspace: string; path: string } | undefined {
  const target = nodeTarget(request);
  if (target === 'missing') sendError(reply, 'pathNotFound', `Name a workspace and a path: ${NODES_PREFIX}/{workspace}{path}`);
  else if ('malformed' in target) sendError(reply, 'badRequest', target.malformed);
  else return target;
  return undefined;
}

/** The workspace and normalized node path a Nodes API URL names (read and write handlers alike). */
function nodeTarget(request: FastifyRequest): { workspace: string; path: string } | 'missing' | { malformed: string } {
  const segments = segmentsAfter(request.canonicalPath, NODES_PREFIX);
  if (segments === undefined || segments.length === 0) return 'missing';
  const [workspace, ...rest] = segments as [string, ...string[]];
  if (!isWorkspaceName(workspace)) return { malformed: `Workspace ${JSON.stringify(workspace)}: ${WORKSPACE_NAME_RULE}` };
  const path = normalizePath(`/${rest.join('/')}`);
  return path === undefined ? { malformed: 'Malformed node path' } : { workspace, path };
}
