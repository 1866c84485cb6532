// Store layer: the one place that reads the backends' errors (PostgreSQL SQLSTATEs and driver
// messages, Node's network error codes, SQLite result codes) and says what kind of fault they are:
// the store cannot be reached now (the request may succeed later: the HTTP layer answers 503), or the
// request holds text PostgreSQL cannot store (bad input: 400). Anything else is a bug (500).

export type StoreFault = 'unreachable' | 'unstorableText';

/** Thrown by a store used while it is not open (before `open`, or while the server shuts down). */
export class StoreClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreClosedError';
  }
}

/**
 * SQLSTATEs of a PostgreSQL server that cannot serve this connection: shut down or terminated by an
 * administrator (57P01), crashed (57P02), starting or stopping (57P03), idle session timeout (57P05),
 * too many connections (53300). Class 08 (connection exceptions) is matched by prefix, and any error
 * of severity FATAL or PANIC ended the session (e.g. 55000 "database is not currently accepting
 * connections", 3D000 database dropped, 28P01 authentication refused).
 */
const PG_UNREACHABLE = new Set(['57P01', '57P02', '57P03', '57P05', '53300']);

/** Text PostgreSQL refuses: U+0000 in text (22021) or in JSON (22P05, `\u0000` escapes). */
const PG_UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/** Node's errors of a socket that cannot connect or lost its peer; DNS failures included. */
const NETWORK = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN',
  'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN',
]);

/**
 * node-postgres (pg, pg-pool) raises these without a code: a connection lost or refused, the pool's
 * connection timeout, a pool or client used after it ended (while the server shuts down).
 */
const PG_DRIVER_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'Cannot use a pool after calling end on the pool',
  'Query read timeout',
];

/** SQLite result codes (and their extended codes, `SQLITE_BUSY_SNAPSHOT`, …) of a database it cannot use now. */
const SQLITE_UNREACHABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR)(_|$)/;

/** better-sqlite3's error for a closed connection (a TypeError without a code). */
const SQLITE_CLOSED = 'The database connection is not open';

interface ErrorFields {
  readonly code?: unknown;
  readonly severity?: unknown;
  readonly syscall?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  readonly errors?: unknown;
}

function faultOfOne(e: ErrorFields): StoreFault | undefined {
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code !== undefined) {
    if (PG_UNSTORABLE_TEXT.has(code)) return 'unstorableText';
    if (PG_UNREACHABLE.has(code) || code.startsWith('08') && code.length === 5) return 'unreachable';
    if (NETWORK.has(code)) return 'unreachable';
    // A Unix socket that is not there (the server is down): only for a connect, not any missing file.
    if ((code === 'ENOENT' || code === 'EACCES') && e.syscall === 'connect') return 'unreachable';
    if (SQLITE_UNREACHABLE.test(code)) return 'unreachable';
  }
  if (e.severity === 'FATAL' || e.severity === 'PANIC') return 'unreachable';
  if (typeof e.message === 'string') {
    const m = e.message;
    if (m === SQLITE_CLOSED) return 'unreachable';
    for (const prefix of PG_DRIVER_MESSAGES) if (m.startsWith(prefix)) return 'unreachable';
  }
  return undefined;
}

/**
 * What kind of store fault `err` is, or undefined when it is none. Looks through `cause` chains and
 * AggregateErrors (Node reports a refused connection to every address of a host as one).
 */
export function storeFaultOf(err: unknown): StoreFault | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 16) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (e instanceof StoreClosedError) return 'unreachable';
    const fields = e as ErrorFields;
    const fault = faultOfOne(fields);
    if (fault !== undefined) return fault;
    if (fields.cause !== undefined) queue.push(fields.cause);
    if (Array.isArray(fields.errors)) queue.push(...(fields.errors as unknown[]));
  }
  return undefined;
}

/** True when `err` says the store cannot be reached now (see `storeFaultOf`). */
export function isStoreUnreachable(err: unknown): boolean {
  return storeFaultOf(err) === 'unreachable';
}
