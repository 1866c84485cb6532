// Notify layer: what every CDN purge target does (purge-fastly.ts, purge-cloudflare.ts, purge-http.ts):
// send one batch of cache keys in its vendor's form, and say whether a failed call is worth repeating.
// The purger (purger.ts) batches, retries and drops; targets only speak HTTP, through outbound-request.ts.
import { MAX_RESPONSE_BYTES, sendOutbound, type OutboundResponse } from './outbound-request.js';

/** One call's batch: the keys and the newest change they come from. */
export interface PurgeBatch {
  readonly keys: readonly string[];
  /** Sequence of the newest change event whose keys are in the batch. */
  readonly sequence: number;
  /** ISO 8601 instant of that change. */
  readonly at: string;
}

export interface PurgeTargetSender {
  /** For logs: the type and where it sends (never a token). */
  readonly name: string;
  /** Most keys one call may carry (the vendor's limit). */
  readonly maxKeysPerCall: number;
  /** Resolves once the target accepted the batch; rejects with a PurgeCallError otherwise. */
  send(batch: PurgeBatch, signal: AbortSignal): Promise<void>;
}

export class PurgeCallError extends Error {
  /** False when repeating the same call cannot help (a refused token, a malformed request). */
  readonly retriable: boolean;
  /** How long the target asked to wait (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retriable: boolean, retryAfterMs?: number) {
    super(message);
    this.name = 'PurgeCallError';
    this.retriable = retriable;
    this.retryAfterMs = retryAfterMs;
  }
}

/** Longest wait a Retry-After may impose: a purge that late is hardly worth it. */
const MAX_RETRY_AFTER_MS = 30_000;
/** A call that takes longer is abandoned (and retried like a failure). */
export const PURGE_CALL_TIMEOUT_MS = 10_000;

/**
 * POSTs and turns every outcome but a 2xx into a PurgeCallError: 408, 429 and 5xx and network errors
 * are retriable, other 4xx are not (a wrong token or service id stays wrong), and neither is a 3xx (a
 * redirect is never followed: the token is for this URL). Returns the body's first 64 KiB as text.
 */
export async function postPurge(url: string, init: { headers: Record<string, string>; body?: string }, signal: AbortSignal): Promise<string> {
  let res: OutboundResponse;
  try {
    res = await sendOutbound({
      url, method: 'POST', headers: init.headers, ...(init.body !== undefined ? { body: init.body } : {}),
      timeoutMs: PURGE_CALL_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES, signal,
    });
  } catch (err) {
    throw new PurgeCallError(`POST ${url} failed: ${err instanceof Error ? err.message : String(err)}`, !signal.aborted);
  }
  if (res.redirect) throw new PurgeCallError(`POST ${url} answered ${res.status} (a redirect: not followed)`, false);
  if (res.status >= 200 && res.status < 300) return res.text;
  const retriable = res.status === 408 || res.status === 429 || res.status >= 500;
  throw new PurgeCallError(`POST ${url} answered ${res.status}${res.text !== '' ? `: ${res.text.slice(0, 200)}` : ''}`, retriable, retryAfter(res.headers.get('retry-after')));
}

function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

/** The value of an environment variable a target needs; a clear error at start when it is not set. */
export function requiredEnv(env: NodeJS.ProcessEnv, name: string, what: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`cdn.purge: ${what} names the environment variable ${name}, which is not set`);
  return value;
}

/** `base` without trailing slashes, for appending paths. */
export const trimSlash = (base: string): string => base.replace(/\/+$/, '');
