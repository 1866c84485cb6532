// HTTP layer: `GET {contextPath}/.rest/export/v1/{workspace}{path}?format=yaml|xml`, a node's subtree (or a
// workspace) as the export file `petal import` takes back, streamed as it is read. It reads through the
// caller's session: what the caller may not read is left out, and a path they cannot read is a 404. The
// URI permissions of the security hook apply first (built-in roles give this URL to `superuser` only).
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../../model/names.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Repository } from '../../repository/session.js';
import type { SecurityService } from '../../security/security-service.js';
import { normalizePath } from '../../model/paths.js';
import { isExportFormat } from '../../export/export-file-name.js';
import { prepareExport } from '../../export/export-subtree.js';
import { EXPORT_PREFIX } from '../../config/api-prefixes.js';
import { sendError } from '../error-handler.js';
import { segmentsAfter } from './dam.js';

export interface ExportRouteOptions {
  readonly repository: Repository;
  readonly security: SecurityService;
  readonly contextPath: string;
}

/** `attachment` with an ASCII fallback name and the exact one (RFC 6266 / 8187). */
function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export function registerExportRoutes(app: FastifyInstance, o: ExportRouteOptions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const segments = segmentsAfter(request.canonicalPath, EXPORT_PREFIX);
    if (segments === undefined || segments.length === 0) {
      return sendError(reply, 'pathNotFound', `Name a workspace and a path: ${EXPORT_PREFIX}/{workspace}{path}`);
    }
    const [workspace, ...rest] = segments as [string, ...string[]];
    if (!isWorkspaceName(workspace)) return sendError(reply, 'badRequest', `Workspace ${JSON.stringify(workspace)}: ${WORKSPACE_NAME_RULE}`);
    const path = normalizePath(`/${rest.join('/')}`);
    if (path === undefined) return sendError(reply, 'badRequest', 'Malformed node path');
    const raw = (request.query as Record<string, unknown>).format;
    const format = raw ?? (path === '/' ? 'xml' : 'yaml');
    if (typeof format !== 'string' || !isExportFormat(format)) {
      return sendError(reply, 'invalidParameter', `Parameter "format" must be yaml or xml, not ${JSON.stringify(raw)}`);
    }
    if (path === '/' && format === 'yaml') {
      return sendError(reply, 'invalidParameter', 'Parameter "format": a whole workspace exports as xml only (a YAML export holds one node)');
    }
    if (path === '/' && !(await o.repository.store.reads.listWorkspaces()).includes(workspace)) {
      return sendError(reply, 'pathNotFound', `No workspace ${workspace}`);
    }
    const session = o.repository.session(o.security.readAccess(request.caller));
    const prepared = await prepareExport(session, o.repository.store.blobs, workspace, path, format);
    if (!prepared.ok) {
      return prepared.problem === 'missing'
        ? sendError(reply, 'pathNotFound', `No node at ${path}`)
        : sendError(reply, 'badRequest', `Cannot export ${path}: ${prepared.reason}`);
    }
    return reply
      .header('content-type', prepared.contentType)
      .header('content-disposition', attachment(prepared.fileName))
      // What a signed-in caller may read is theirs alone, and content changes: never kept by a cache.
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(prepared.open());
  };
  const prefix = `${o.contextPath}${EXPORT_PREFIX}`;
  for (const url of [prefix, `${prefix}/*`]) {
    // No automatic HEAD: it would read the whole export to throw it away.
    app.route({ method: 'GET', url, handler, exposeHeadRoute: false });
    app.route({
      method: ['HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'],
      url,
      handler: async (_request, reply) => sendError(reply.header('allow', 'GET'), 'methodNotAllowed', 'Exports are read with GET'),
    });
  }
}
