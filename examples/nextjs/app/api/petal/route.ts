// A Next.js (App Router) route handler receiving Petal's webhooks: verify the signature over the raw
// body, then revalidate every cache tag the change hits (the payload's `tags`, the same keys Petal
// puts in its surrogate-key / cache-tag header: see app/lib/petal.ts for how pages tag what they fetch).
//
// petal.yaml:
//   webhooks:
//     - name: next
//       url: https://www.example.com/api/petal
//       events: [published, unpublished]
//       secretEnv: PETAL_WEBHOOK_SECRET      # the same secret in this app's environment
import { createHmac, timingSafeEqual } from 'node:crypto';
import { revalidateTag } from 'next/cache';

export const runtime = 'nodejs';

interface PetalWebhook {
  id: string;
  event: 'published' | 'unpublished' | 'changed' | 'imported';
  workspace: string;
  nodes: { id: string; path: string; type: string }[];
  tags: string[];
  sequence: number;
  at: string;
  truncated?: true;
}

function verify(secret: string, body: string, header: string | null): boolean {
  const parts = new Map((header ?? '').split(',').map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}

export async function POST(request: Request): Promise<Response> {
  const body = await request.text(); // the raw body: what Petal signed
  if (!verify(process.env.PETAL_WEBHOOK_SECRET ?? '', body, request.headers.get('petal-signature'))) {
    return new Response('bad signature', { status: 401 });
  }
  const hook = JSON.parse(body) as PetalWebhook;
  // Next.js 16 asks for a cache-life profile ('max': serve stale while the page is rebuilt); 15 takes the tag alone.
  for (const tag of hook.tags) revalidateTag(tag, 'max');
  // A 2xx tells Petal it was delivered; anything else (or no answer within the timeout) is retried.
  return Response.json({ revalidated: hook.tags.length, delivery: hook.id });
}
