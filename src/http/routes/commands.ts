// HTTP layer: the original's Commands API for publishing, `POST {contextPath}/.rest/commands/v2/{catalog}/{command}`
// (or `/v2/{command}`, catalog `default`) with JSON `{repository, path, recursive, comment, publicationDate}`,
// and Petal's list and cancel of what is scheduled (`GET …/v2/schedules`, `DELETE …/v2/schedules/{id}`).
// The security hook has applied the URI rules (getAndPost) and CSRF; the workspace rules (readWrite on
// the nodes) are decided in the store's transaction. The commands change the working and published
// content of the logical workspace whichever context path they arrive under.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COMMANDS_PREFIX } from '../../config/api-prefixes.js';
import { PetalError } from '../../errors.js';
import { publicationDate } from '../../publishing/publication-date.js';
import { publishingStore, requestPublication } from '../../publishing/publisher.js';
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../../model/names.js';
import { normalizePath } from '../../model/paths.js';
import { takenAlongBy } from '../../repository/publish-rules.js';
import type { Repository } from '../../repository/session.js';
import type { SecurityService } from '../../security/security-service.js';
import { runAsCaller, type Schedule, type ScheduleAction } from '../../store/schedules.js';
import { sendError } from '../error-handler.js';
import { segmentsAfter } from './dam.js';

export interface CommandsRouteOptions {
  readonly repository: Repository;
  readonly security: SecurityService;
  readonly contextPath: string;
  /** False: publishing is off, and the commands answer 404 saying so. */
  readonly publishing: boolean;
  /** How far ahead `publicationDate` may be (petal.yaml `publishing.scheduleHorizonDays`). */
  readonly scheduleHorizonDays?: number;
}

/** The original's publishing commands (and their later names). */
const ACTIONS: Readonly<Record<string, ScheduleAction>> = { activate: 'publish', publish: 'publish', deactivate: 'unpublish', unpublish: 'unpublish' };
/** Catalogs holding them in the original besides the one named after the workspace (`/v2/website/activate`). */
const CATALOGS: ReadonlySet<string> = new Set(['default', 'versioned']);
const SCHEDULES = 'schedules';
const MAX_COMMENT = 2_000;

interface CommandBody {
  readonly workspace: string;
  readonly path: string;
  readonly recursive: boolean;
  readonly comment?: string;
  readonly at?: Date;
}

function field(message: string): PetalError {
  return new PetalError('invalidField', message);
}

function parseBody(body: unknown, horizonDays: number | undefined): CommandBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new PetalError('badRequest', 'The body must be a JSON object {repository, path, recursive, comment, publicationDate}');
  const b = body as Record<string, unknown>;
  const ws = b.repository;
  if (typeof ws !== 'string' || ws === '') throw field('repository: the workspace is required (a string)');
  if (!isWorkspaceName(ws)) throw field(`repository: ${WORKSPACE_NAME_RULE}`);
  const rawPath = b.path;
  const path = typeof rawPath === 'string' && rawPath.startsWith('/') ? normalizePath(rawPath) : undefined;
  if (path === undefined || path === '/') throw field('path: an absolute node path is required (such as /travel/hello)');
  const r = b.recursive;
  if (r !== undefined && typeof r !== 'boolean' && r !== 'true' && r !== 'false') throw field('recursive: true or false');
  const comment = b.comment;
  if (comment !== undefined && comment !== null && (typeof comment !== 'string' || comment.length > MAX_COMMENT)) {
    throw field(`comment: a string of at most ${MAX_COMMENT} characters`);
  }
  const date = b.publicationDate;
  let at: Date | undefined;
  if (date !== undefined && date !== null && date !== '') {
    // As the original's examples give it: `2020-01-01T11:10:00.000+01:00`.
    const checked = typeof date === 'string' ? publicationDate(date, new Date(), horizonDays) : undefined;
    if (checked === undefined || !checked.ok) throw field(`publicationDate: ${checked?.problem ?? 'a string: an ISO 8601 date-time with its offset'}`);
    at = checked.at;
  }
  return {
    workspace: ws, path, recursive: r === true || r === 'true',
    ...(typeof comment === 'string' && comment !== '' ? { comment } : {}), ...(at !== undefined ? { at } : {}),
  };
}

/** A schedule as the API shows it. */
function scheduleJson(s: Schedule): Record<string, unknown> {
  return {
    id: s.id, command: s.action, repository: s.workspace, path: s.path, recursive: s.recursive,
    ...(s.comment !== undefined ? { comment: s.comment } : {}), by: s.by, publicationDate: s.due, created: s.created,
    ...(s.error !== undefined ? { error: s.error } : {}),
  };
}

export function registerCommandsRoutes(app: FastifyInstance, o: CommandsRouteOptions): void {
  const takenAlong = takenAlongBy(o.repository.types);
  const prefix = `${o.contextPath}${COMMANDS_PREFIX}`;
  const off = (reply: FastifyReply) => sendError(reply, 'notFound', 'Publishing is off: set publishing.enabled in petal.yaml to use the commands');

  app.post(`${prefix}/*`, async (request: FastifyRequest, reply: FastifyReply) => {
    const segments = segmentsAfter(request.canonicalPath, COMMANDS_PREFIX) ?? [];
    const [catalog, command] = segments.length === 1 ? ['default', segments[0]!] : segments.length === 2 ? segments as [string, string] : [];
    const action = command === undefined ? undefined : ACTIONS[command];
    if (catalog === undefined || action === undefined) return sendError(reply, 'notFound', 'Known commands: activate, deactivate (publish, unpublish), as /v2/{catalog}/{command} or /v2/{command}');
    if (!o.publishing) return off(reply);
    const body = parseBody(request.body, o.scheduleHorizonDays);
    if (!CATALOGS.has(catalog) && catalog !== body.workspace) {
      return sendError(reply, 'notFound', `No catalog ${JSON.stringify(catalog)} for workspace ${body.workspace}: use default, versioned or ${body.workspace}`);
    }
    // A refusal (NodeWriteError) propagates to the error handler, which answers its code.
    const outcome = await requestPublication(publishingStore(o.repository.store), {
      action, workspace: body.workspace, path: body.path, recursive: body.recursive, takenAlong,
      by: request.caller.user ?? 'anonymous', guard: o.security.writeAccess(request.caller), runAs: runAsCaller(request.caller.user),
      ...(body.comment !== undefined ? { comment: body.comment } : {}), ...(body.at !== undefined ? { at: body.at } : {}),
    });
    reply.header('cache-control', 'no-store');
    if (outcome.kind === 'scheduled') return reply.code(202).send({ schedule: scheduleJson(outcome.schedule) });
    const { result } = outcome;
    return reply.code(200).send({
      command: action, repository: body.workspace, path: body.path, recursive: body.recursive, nodes: result.nodes,
      ...(result.version !== undefined ? { version: result.version.name } : {}),
    });
  });

  // The schedules the caller could have made: those of nodes it may write.
  const mayManage = (request: FastifyRequest, s: Schedule) => o.security.writeAccess(request.caller).mayWrite(s.workspace, s.path);
  app.get(`${prefix}/${SCHEDULES}`, async (request: FastifyRequest, reply: FastifyReply) => {
    if (!o.publishing) return off(reply);
    const all = await o.repository.store.schedules.list();
    return reply.header('cache-control', 'no-store').send({ schedules: all.filter((s) => mayManage(request, s)).map(scheduleJson) });
  });
  app.delete(`${prefix}/${SCHEDULES}/:id`, async (request: FastifyRequest, reply: FastifyReply) => {
    if (!o.publishing) return off(reply);
    const [, id] = segmentsAfter(request.canonicalPath, COMMANDS_PREFIX) ?? [];
    const found = (await o.repository.store.schedules.list()).find((s) => s.id === id);
    // Another's schedule is as missing as none: its path is not the caller's to learn.
    if (found === undefined || !mayManage(request, found)) return sendError(reply, 'scheduleNotFound', `No schedule ${id ?? ''}`);
    const removed = await o.repository.store.schedules.cancel(found.id);
    if (removed === undefined) return sendError(reply, 'scheduleNotFound', `No schedule ${found.id} (it has just run or been cancelled)`);
    return reply.header('cache-control', 'no-store').send({ cancelled: scheduleJson(removed) });
  });
}
