// Notify layer: how Petal signs what it POSTs to others (webhooks, the `http` purge target), the scheme
// of the big webhook senders: header `Petal-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<body>">`. A receiver recomputes v1 with the shared secret over the raw body, compares in
// constant time, and refuses a `t` too far from its clock (replays).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'petal-signature';
/** What a receiver should accept between `t` and its own clock (seconds). */
export const SIGNATURE_TOLERANCE_S = 300;

/** The header value for `body` signed with `secret` at `at` (milliseconds since the epoch). */
export function signatureHeader(secret: string, body: string, at: number = Date.now()): string {
  const t = Math.floor(at / 1000);
  return `t=${t},v1=${hmac(secret, t, body)}`;
}

/** True when `header` signs `body` with `secret` within the tolerance of `now` (milliseconds). */
export function verifySignature(secret: string, body: string, header: string | undefined, now: number = Date.now()): boolean {
  if (header === undefined) return false;
  const parts = new Map(header.split(',').map((p) => {
    const at = p.indexOf('=');
    return [p.slice(0, at).trim(), p.slice(at + 1).trim()] as const;
  }));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1');
  if (!Number.isInteger(t) || v1 === undefined || !/^[0-9a-f]{64}$/.test(v1)) return false;
  if (Math.abs(now / 1000 - t) > SIGNATURE_TOLERANCE_S) return false;
  return timingSafeEqual(Buffer.from(v1, 'hex'), Buffer.from(hmac(secret, t, body), 'hex'));
}

function hmac(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}
