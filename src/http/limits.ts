// HTTP layer: limits against hostile or broken clients: URL length, header size and count, body size,
// query parameter count, timeouts for slow clients, and JSON answers for errors Node raises itself.
import type { Socket } from 'node:net';
import { errorBody } from './error-handler.js';
import type { ErrorCode } from '../errors.js';

export const LIMITS = {
  /** Longest request target (414 beyond); browsers and CDNs stop at about 8 KB. */
  maxUrlLength: 8192,
  /** Total size of the request headers (431 beyond), Node's own default. */
  maxHeaderBytes: 16 * 1024,
  /** Request body (413 beyond). */
  maxBodyBytes: 1 << 20,
  /** Query string parameters (400 beyond). */
  maxQueryParams: 64,
  /** A client must send its headers within this time, and its whole request within `requestTimeoutMs`. */
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
} as const;

const STATUS_LINE: Readonly<Record<number, string>> = { 400: '400 Bad Request', 408: '408 Request Timeout', 431: '431 Request Header Fields Too Large', 413: '413 Payload Too Large', 414: '414 URI Too Long' };

/** Errors Node's HTTP parser raises before any route runs, answered in our JSON error shape. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return;
  let status = 400;
  let code: ErrorCode = 'badRequest';
  if (err.code === 'HPE_HEADER_OVERFLOW') { status = 431; code = 'headersTooLarge'; }
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT') { status = 408; code = 'badRequest'; }
  const body = errorBody(code, status === 431 ? 'Request headers too large' : status === 408 ? 'The request took too long to arrive' : 'The request could not be parsed');
  socket.end(`HTTP/1.1 ${STATUS_LINE[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`);
}
