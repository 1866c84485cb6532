// HTTP layer: the requests rate limits do not count (petal.yaml `rateLimit.exempt`, `exemptSecretEnv`).
// An SSR server or a CDN sends every visitor's request from a few addresses; counting them per address
// would throttle the whole site, so such callers are named by address or carry a shared secret.
import { BlockList, isIP } from 'node:net';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** The header an SSR server sends the secret in. */
export const EXEMPT_SECRET_HEADER = 'x-petal-rate-limit-secret';

/** trustProxy's keywords, as the proxy-addr package defines them. */
const KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

export interface RateLimitExemptions {
  readonly exempt?: readonly string[];
  /** The secret's value (read from the environment by main.ts). */
  readonly exemptSecret?: string;
}

/** A predicate for @fastify/rate-limit's `allowList`, or undefined when nothing is exempt. */
export function exemptionOf(o: RateLimitExemptions): ((request: FastifyRequest) => boolean) | undefined {
  const blocks = o.exempt !== undefined && o.exempt.length > 0 ? addressList(o.exempt) : undefined;
  const secret = o.exemptSecret !== undefined && o.exemptSecret !== '' ? digest(o.exemptSecret) : undefined;
  if (blocks === undefined && secret === undefined) return undefined;
  return (request) => {
    if (blocks !== undefined && matches(blocks, request.ip)) return true;
    if (secret === undefined) return false;
    const sent = request.headers[EXEMPT_SECRET_HEADER];
    // Digests of equal length make the comparison's time independent of the secret.
    return typeof sent === 'string' && timingSafeEqual(digest(sent), secret);
  };
}

function addressList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries.flatMap((e) => KEYWORDS[e] ?? [e])) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

function matches(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // An IPv4 client on a dual-stack socket arrives as ::ffff:a.b.c.d; BlockList matches it against IPv4 rules.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return list.check(mapped[1]!, 'ipv4');
  return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
