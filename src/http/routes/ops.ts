// HTTP layer: operational routes: `/.health` for probes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Repository } from '../../repository/session.js';
import { RETRY_AFTER_SECONDS } from '../error-handler.js';
import { HEALTH_PATH } from '../security-hook.js';

/** `/.health` at the root and under the context path (security-hook.ts lets both through unchecked). */
export function registerOpsRoutes(app: FastifyInstance, repository: Repository, contextPath: string): void {
  const health = async (_request: FastifyRequest, reply: FastifyReply) => {
    let ok = false;
    try {
      ok = await repository.ping();
    } catch {
      ok = false;
    }
    reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
    if (ok) return reply.code(200).send('{"status":"ok"}');
    return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send('{"status":"unavailable","error":{"code":"serviceUnavailable","message":"The content store is not reachable"}}');
  };
  app.get(HEALTH_PATH, health);
  if (contextPath !== '') app.get(contextPath + HEALTH_PATH, health);
}
