// Verifies a Petal webhook's signature: plain Node (18+), no dependencies. Copy it into a receiver.
//
//   petal-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the shared secret>
//
// Verify over the raw body exactly as received (not re-serialized JSON), compare in constant time,
// and refuse a timestamp far from your clock (a replayed request). `petal-delivery` (also the body's
// `id`) is the same on every retry of one delivery: remember the ids you handled to drop duplicates.
//
// Run it as a receiver:  PETAL_WEBHOOK_SECRET=… node verify.mjs   (listens on PORT, default 3001)
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

export const TOLERANCE_SECONDS = 300;

/** True when `header` (the petal-signature value) signs `rawBody` (a string or Buffer) with `secret`. */
export function verifyPetalSignature(secret, rawBody, header, { toleranceSeconds = TOLERANCE_SECONDS, now = Date.now() } = {}) {
  if (typeof header !== 'string' || typeof secret !== 'string' || secret === '') return false;
  const parts = Object.fromEntries(header.split(',').map((p) => {
    const at = p.indexOf('=');
    return [p.slice(0, at).trim(), p.slice(at + 1).trim()];
  }));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false;
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.PETAL_WEBHOOK_SECRET ?? '';
  createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!verifyPetalSignature(secret, body, req.headers['petal-signature'])) {
        res.writeHead(401).end('bad signature');
        return;
      }
      const payload = JSON.parse(body.toString('utf8'));
      console.log(`${payload.id}: ${payload.event} ${payload.workspace} ${payload.nodes.map((n) => n.path).join(' ')}`);
      res.writeHead(204).end(); // any 2xx: delivered; anything else is retried
    });
  }).listen(Number(process.env.PORT ?? 3001));
}
