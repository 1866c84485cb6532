// HTTP layer: writes what the response-cache policy (response-cache-policy.ts) says to send: its
// headers, then the JSON body, a 304, or the error sent as any error is. Shared by the routes whose
// answers the policy decides (delivery, GraphQL GETs).
import type { FastifyReply } from 'fastify';
import { sendError } from './error-handler.js';
import type { Outgoing } from './response-cache-policy.js';

export function sendOutgoing(reply: FastifyReply, out: Outgoing): FastifyReply {
  reply.headers(out.headers);
  switch (out.kind) {
    case 'error': return sendError(reply, out.code, out.message);
    case 'notModified': return reply.code(304).send();
    case 'json': return reply.header('content-type', 'application/json; charset=utf-8').send(out.body);
  }
}
