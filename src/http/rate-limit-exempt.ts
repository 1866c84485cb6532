// HTTP layer: the requests rate limits do not count (petal.yaml `rateLimit.exempt`, `exemptSecretEnv`).
// An SSR server or a CDN sends every visitor's request from a few addresses; counting them per address
// would throttle the whole site, so such callers are named by address or carry a shared secret.
import { createHash, timingSafeEqual } from 'node:crypto';
import { compile } from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';

/** The header an SSR server sends the secret in. */
export const EXEMPT_SECRET_HEADER = 'x-petal-rate-limit-secret';

export interface RateLimitExemptions {
  readonly exempt?: readonly string[];
  /** The secret's value (read from the environment by main.ts). */
  readonly exemptSecret?: string;
}

/** A predicate for @fastify/rate-limit's `allowList`, or undefined when nothing is exempt. */
export function exemptionOf(o: RateLimitExemptions): ((request: FastifyRequest) => boolean) | undefined {
  // The matcher Fastify compiles `trustProxy` with: the same entries mean the same addresses (keywords,
  // CIDR ranges, IPv4 clients on a dual-stack socket).
  const exempt = o.exempt !== undefined && o.exempt.length > 0 ? compile([...o.exempt]) : undefined;
  const secret = o.exemptSecret !== undefined && o.exemptSecret !== '' ? digest(o.exemptSecret) : undefined;
  if (exempt === undefined && secret === undefined) return undefined;
  return (request) => {
    if (exempt !== undefined && exempt(request.ip, 0)) return true;
    if (secret === undefined) return false;
    const sent = request.headers[EXEMPT_SECRET_HEADER];
    // Digests of equal length make the comparison's time independent of the secret.
    return typeof sent === 'string' && timingSafeEqual(digest(sent), secret);
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
