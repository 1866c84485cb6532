// HTTP layer: the first hook of every request. Marks every answer `nosniff` (errors, assets, health
// and shop included: a browser must never guess a type from a body a client may have chosen), and
// refuses a request target holding `#`: a fragment is no part of a request target (RFC 9112 §3.2), and
// the router reads what follows it as the query string while the raw target has no `?`, so two
// readers of one URL would disagree (cache poisoning, issue 14).
import type { FastifyInstance } from 'fastify';
import { sendError } from './error-handler.js';

export function registerRequestGuard(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if ((request.raw.url ?? '').includes('#')) {
      sendError(reply, 'badRequest', 'The request target holds "#": a fragment cannot be sent to a server');
      return;
    }
    done();
  });
}
