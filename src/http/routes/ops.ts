// HTTP layer: operational routes: `/.health` for probes.
import type { FastifyInstance } from 'fastify';
import type { Repository } from '../../repository/session.js';
import { RETRY_AFTER_SECONDS } from '../error-handler.js';

export function registerOpsRoutes(app: FastifyInstance, repository: Repository): void {
  app.get('/.health', async (_request, reply) => {
    let ok = false;
    try {
      ok = await repository.ping();
    } catch {
      ok = false;
    }
    reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
    if (ok) return reply.code(200).send('{"status":"ok"}');
    return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send('{"status":"unavailable","error":{"code":"serviceUnavailable","message":"The content store is not reachable"}}');
  });
}
