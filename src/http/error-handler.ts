// HTTP layer: the one place that turns errors into responses: `{"error":{"code","message"}}` with the
// status of the error table; anything unexpected is a 500 `unknown`, logged with the request id and
// never with a stack trace in the body.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, isPetalError, type ErrorCode } from '../errors.js';

export function errorBody(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string): FastifyReply {
  return reply
    .code(ERRORS[code].status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(errorBody(code, message ?? ERRORS[code].message));
}

/** Fastify's own client errors (bad URL, body too large, bad content type…) mapped to our codes. */
function codeForStatus(status: number): ErrorCode | undefined {
  switch (status) {
    case 400: return 'badRequest';
    case 404: return 'notFound';
    case 405: return 'methodNotAllowed';
    case 406: return 'notAcceptable';
    case 413: return 'payloadTooLarge';
    case 414: return 'uriTooLong';
    case 415: return 'unsupportedMediaType';
    case 431: return 'headersTooLarge';
    default: return status >= 400 && status < 500 ? 'badRequest' : undefined;
  }
}

export function handleError(err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isPetalError(err)) {
    if (err.status >= 500) request.log.error({ err, reqId: request.id }, err.message);
    return sendError(reply, err.code, err.message);
  }
  const status = (err as FastifyError).statusCode;
  if (typeof status === 'number') {
    const code = codeForStatus(status);
    if (code !== undefined) return sendError(reply, code, ERRORS[code].message);
  }
  request.log.error({ err, reqId: request.id }, 'unexpected error');
  return sendError(reply, 'unknown', `An unexpected error occurred (request id ${request.id})`);
}
