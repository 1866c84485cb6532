// The documented Next.js route handler (examples/nextjs/app/api/petal/route.ts) run as written, with
// `next/cache` stood in for: a real signed delivery revalidates every tag of its payload; a wrong
// secret answers 401 and revalidates nothing.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { signatureHeader } from '../../src/notify/signature.js';

const revalidated: string[] = [];
vi.mock('next/cache', () => ({ revalidateTag: (tag: string) => { revalidated.push(tag); } }));

// A path in a variable: the type checker does not follow it into an app whose `next` is not installed here.
const ROUTE: string = '../../examples/nextjs/app/api/petal/route.js';
type Route = { POST(request: Request): Promise<Response> };
const SECRET = 'next-example-secret';
const body = JSON.stringify({
  id: 'next-7', event: 'published', workspace: 'website', nodes: [{ id: 'a', path: '/home', type: 'cms:page' }],
  tags: ['w1abc', 'n2def', 'c3ghi'], sequence: 7, at: new Date().toISOString(),
});
const request = (signature: string) => new Request('http://localhost/api/petal', { method: 'POST', body, headers: { 'petal-signature': signature } });

beforeEach(() => { revalidated.length = 0; process.env.PETAL_WEBHOOK_SECRET = SECRET; });
afterEach(() => { delete process.env.PETAL_WEBHOOK_SECRET; });

it('revalidates the tags of a delivery signed with the secret', async () => {
  const { POST } = (await import(ROUTE)) as Route;
  const res = await POST(request(signatureHeader(SECRET, body)));
  expect(res.status).toBe(200);
  expect(revalidated).toEqual(['w1abc', 'n2def', 'c3ghi']);
});

it('refuses a delivery signed with another secret', async () => {
  const { POST } = (await import(ROUTE)) as Route;
  const res = await POST(request(signatureHeader('another-secret', body)));
  expect(res.status).toBe(401);
  expect(revalidated).toEqual([]);
});
