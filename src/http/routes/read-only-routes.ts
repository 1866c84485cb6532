// HTTP layer: a read-only API's routes: GET and HEAD served by `handler` at the prefix and below it,
// every other method answered 405 with `Allow: GET, HEAD` and why.
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { sendError } from '../error-handler.js';

export function readOnlyRoutes(app: FastifyInstance, prefix: string, handler: RouteHandlerMethod, refusal: string): void {
  for (const url of [prefix, `${prefix}/*`]) {
    app.route({ method: ['GET', 'HEAD'], url, handler });
    app.route({
      method: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
      url,
      handler: async (_request, reply) => sendError(reply.header('allow', 'GET, HEAD'), 'methodNotAllowed', refusal),
    });
  }
}
