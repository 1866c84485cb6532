// Notify layer: the one way Petal sends a request out (webhooks, CDN purges to Fastly, Cloudflare or
// any URL). Every request has a timeout over the whole exchange (connecting, the answer's headers and
// the part of its body read), reads at most a given number of body bytes and then cancels the stream
// (a target streaming without end once took the process from 2.5 to 4.8 GB), and never follows a
// redirect: a 3xx is answered as it came, so the headers given (`Fastly-Key`, `Authorization`, a
// signature) only ever reach the configured URL's origin.

/** What Petal reads of an answer's body by default: vendors' answers are a few KB at most. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface OutboundRequest {
  readonly url: string;
  readonly method: 'POST' | 'GET';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The whole exchange, reading the body included, ends within this. */
  readonly timeoutMs: number;
  /** Body bytes read at most; the rest is never read (the connection is closed). 0: none. */
  readonly maxResponseBytes: number;
  /** Aborts the request (a purger stopping). */
  readonly signal?: AbortSignal;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The body's first `maxResponseBytes` bytes, as UTF-8 ('' for a redirect). */
  readonly text: string;
  /** Body bytes kept in `text`. */
  readonly bytesRead: number;
  /** The body was longer than `maxResponseBytes`: the rest was not read. */
  readonly truncated: boolean;
  /** A 3xx: not followed, its body not read. */
  readonly redirect: boolean;
}

export type OutboundFailure = 'timeout' | 'aborted' | 'network' | 'invalidUrl';

/** A request that got no answer: why, with a message that names no header value. */
export class OutboundError extends Error {
  readonly reason: OutboundFailure;

  constructor(reason: OutboundFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
    this.reason = reason;
  }
}

function failure(err: unknown, request: OutboundRequest): OutboundError {
  if (request.signal?.aborted === true) return new OutboundError('aborted', 'aborted', { cause: err });
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return new OutboundError('timeout', `no answer within ${request.timeoutMs} ms`, { cause: err });
  }
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return new OutboundError('network', `${err instanceof Error ? err.message : String(err)}${cause}`, { cause: err });
}

/** The body's first `max` bytes; the stream is cancelled as soon as more arrive. */
async function readCapped(body: ReadableStream<Uint8Array>, max: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks, size), truncated: false };
      if (size + value.byteLength > max) {
        chunks.push(value.subarray(0, max - size));
        size = max;
        await reader.cancel().catch(() => undefined);
        return { bytes: Buffer.concat(chunks, size), truncated: true };
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Sends one request; rejects with an OutboundError when no answer came, resolves with any status otherwise. */
export async function sendOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch (err) {
    throw new OutboundError('invalidUrl', 'not a URL', { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('invalidUrl', `${url.protocol} URLs are not sent to (http: and https: only)`);
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]);
  try {
    const res = await fetch(url, {
      method: request.method, headers: request.headers, redirect: 'manual', signal,
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    const redirect = res.status >= 300 && res.status < 400;
    if (redirect || request.maxResponseBytes <= 0 || res.body === null) {
      await res.body?.cancel().catch(() => undefined); // frees the socket without reading
      return { status: res.status, headers: res.headers, text: '', bytesRead: 0, truncated: false, redirect };
    }
    const { bytes, truncated } = await readCapped(res.body, request.maxResponseBytes);
    return { status: res.status, headers: res.headers, text: bytes.toString('utf8'), bytesRead: bytes.length, truncated, redirect };
  } catch (err) {
    throw failure(err, request);
  }
}
