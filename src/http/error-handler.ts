// HTTP layer: the one place that turns errors into responses: `{"error":{"code","message"}}` with the
// status of the error table; a store that cannot be reached is a 503 `serviceUnavailable` with
// `Retry-After`; anything unexpected is a 500 `unknown`, logged with the request id and never with a
// stack trace in the body.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, isPetalError, type ErrorCode } from '../errors.js';
import { storeFaultOf } from '../store/store-faults.js';

/** Seconds a client should wait before retrying a 503 (Petal resumes within a second of the store's return). */
export const RETRY_AFTER_SECONDS = 5;

export function errorBody(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string): FastifyReply {
  return reply
    .code(ERRORS[code].status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
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

/** 503 `serviceUnavailable` with `Retry-After` (kept when the route set its own). */
export function sendUnavailable(reply: FastifyReply, message?: string): FastifyReply {
  if (!reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return sendError(reply, 'serviceUnavailable', message);
}

export function handleError(err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isPetalError(err)) {
    if (err.code === 'serviceUnavailable') return sendUnavailable(reply, err.message);
    if (err.status >= 500) request.log.error({ err, reqId: request.id }, err.message);
    return sendError(reply, err.code, err.message);
  }
  const status = (err as FastifyError).statusCode;
  if (typeof status === 'number') {
    const code = codeForStatus(status);
    if (code !== undefined) return sendError(reply, code, ERRORS[code].message);
  }
  switch (storeFaultOf(err)) {
    case 'unreachable':
      // An outage fails many requests alike: one short line each, no stack.
      request.log.warn({ reqId: request.id, reason: err.message }, 'content store unreachable');
      return sendUnavailable(reply);
    case 'unstorableText':
      // What every input check should have caught: text PostgreSQL refuses is bad input, not a bug of ours.
      request.log.warn({ reqId: request.id, reason: err.message }, 'text the store cannot hold');
      return sendError(reply, 'badRequest', 'The request holds text that cannot be stored (U+0000 or an unpaired surrogate)');
    case undefined:
      break;
  }
  request.log.error({ err, reqId: request.id }, 'unexpected error');
  return sendError(reply, 'unknown', `An unexpected error occurred (request id ${request.id})`);
}
