// HTTP layer: limits against hostile or broken clients: URL length, header size and count, body size,
// query parameter count, timeouts for slow clients, and JSON answers for errors Node raises itself.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorBody } from './error-handler.js';
import { DEFAULT_LIMITS } from '../config/load-config.js';
import { ERRORS, type ErrorCode } from '../errors.js';
import type { JsonBodyLimits } from './json-scan.js';

export const LIMITS = {
  /** Longest request target (414 beyond); browsers and CDNs stop at about 8 KB. */
  maxUrlLength: 8192,
  /** Total size of the request headers (431 beyond), Node's own default. */
  maxHeaderBytes: 16 * 1024,
  /** Request body (413 beyond). */
  maxBodyBytes: 1 << 20,
  /** Query string parameters (400 beyond). */
  maxQueryParams: 64,
} as const;

/**
 * What a JSON body may hold (json-body.ts), checked by a linear scan before JSON.parse builds anything;
 * a route may ask for others (`config.jsonBody`: the Nodes API allows more values and keys).
 */
export const JSON_BODY_LIMITS: JsonBodyLimits = {
  /** A Nodes API write nested 20 levels of `nodes` deep is 44 levels of JSON. */
  maxDepth: 64,
  /** Values and keys: a 1 MiB body holds at most about 500,000 (`[1,1,…]`). */
  maxItems: 100_000,
  /** Characters of one string: SPEC's limit of submitted JSON strings. */
  maxStringChars: 20_000_000,
};

/** How long a client may take (petal.yaml `limits:`); see DEFAULT_TIMEOUTS. */
export interface HttpTimeouts {
  /** The request line and headers must arrive within this time of the first byte (408 beyond). */
  readonly headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this time (408 beyond). */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  readonly keepAliveTimeoutMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: DEFAULT_LIMITS.headersTimeoutMs, requestTimeoutMs: DEFAULT_LIMITS.requestTimeoutMs, keepAliveTimeoutMs: DEFAULT_LIMITS.keepAliveTimeoutMs,
};

/**
 * How often Node looks for connections over their headers or request timeout. Its default (30 s)
 * let a slow client keep a connection 20 to 40 s past a 10 s limit: a quarter of the shorter
 * timeout, at most 1 s, enforces each within a second of its value.
 */
export function connectionsCheckingIntervalMs(t: HttpTimeouts): number {
  return Math.max(50, Math.min(1_000, Math.floor(Math.min(t.headersTimeoutMs, t.requestTimeoutMs) / 4)));
}

/** An error answer written on the socket itself, for what never becomes a Fastify request. */
function endWithError(socket: Duplex, code: ErrorCode, message: string, extraHeaders = ''): void {
  const status = ERRORS[code].status;
  const body = errorBody(code, message);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
    + `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n${extraHeaders}Connection: close\r\n\r\n${body}`);
}

/** Errors Node's HTTP parser raises before any route runs, answered in our JSON error shape. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return;
  if (err.code === 'HPE_HEADER_OVERFLOW') endWithError(socket, 'headersTooLarge', ERRORS.headersTooLarge.message);
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT') endWithError(socket, 'requestTimeout', ERRORS.requestTimeout.message);
  else endWithError(socket, 'badRequest', 'The request could not be parsed');
}

/**
 * `CONNECT` (a proxy tunnel) is no request Node hands to the app: it emits 'connect', and without a
 * listener drops the connection without a word. Petal is no proxy: 405 like any other method it
 * does not serve.
 */
export function answerConnect(_request: IncomingMessage, socket: Duplex): void {
  if (socket.writable) endWithError(socket, 'methodNotAllowed', 'CONNECT is not supported: Petal is not a proxy', 'Allow: GET, HEAD, POST, PUT, DELETE, OPTIONS\r\n');
}

/** An `Expect` other than 100-continue: Node answered 417 with an empty body; ours has the JSON shape. */
export function answerExpectation(request: IncomingMessage, response: ServerResponse): void {
  const body = errorBody('expectationFailed', `${ERRORS.expectationFailed.message}, not ${JSON.stringify(String(request.headers.expect).slice(0, 100))}`);
  response.writeHead(417, {
    'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store', 'x-content-type-options': 'nosniff', connection: 'close',
  }).end(body);
}
