// HTTP layer: the one place that turns errors into responses: `{"error":{"code","message"}}` with the
// status of the error table; the domain errors of the layers below get their code here (routes let
// them propagate); a store that cannot be reached is a 503 `serviceUnavailable` with `Retry-After`;
// anything unexpected is a 500 `unknown`, logged with the request id and never with a stack trace in
// the body.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, isPetalError, PetalError, type ErrorCode } from '../errors.js';
import { ImportError } from '../ingest/import-error.js';
import { ImportConflictError, InvalidDocumentError } from '../ingest/run-import.js';
import { NodeWriteError, type NodeWriteReason } from '../repository/node-write.js';
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

/** The code each reason of a refused node write (Nodes and Properties APIs, publishing commands) answers. */
export const NODE_WRITE_CODES = {
  missing: 'pathNotFound', exists: 'nodeExists', identifierInUse: 'identifierInUse', stale: 'preconditionFailed',
  denied: 'accessDenied', invalid: 'invalidField', parentNotPublished: 'parentNotPublished',
} as const satisfies Record<NodeWriteReason, ErrorCode>;

/**
 * A domain error as the PetalError of the table it answers (its message kept, or the part any caller
 * may be told); undefined for an error that is no domain error.
 */
export function petalErrorOf(err: unknown): PetalError | undefined {
  if (isPetalError(err)) return err;
  if (err instanceof NodeWriteError) return new PetalError(NODE_WRITE_CODES[err.reason], err.message, { cause: err });
  // A file that cannot be read as content is the caller's error (400), never a conflict with the content.
  if (err instanceof ImportError || err instanceof InvalidDocumentError) return new PetalError('invalidImport', err.message, { cause: err });
  // The holder's path is not told over HTTP: the caller may not be allowed to read it.
  if (err instanceof ImportConflictError) return new PetalError('importConflict', err.publicMessage, { cause: err });
  return undefined;
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
  const known = petalErrorOf(err);
  if (known !== undefined) {
    if (known.retryAfterSeconds !== undefined) reply.header('retry-after', String(known.retryAfterSeconds));
    if (known.code === 'serviceUnavailable') return sendUnavailable(reply, known.message);
    if (known.status >= 500) request.log.error({ err: known, reqId: request.id }, known.message);
    return sendError(reply, known.code, known.message);
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
