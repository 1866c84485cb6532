// Fetches from Petal inside Next.js's data cache, tagged with the keys Petal lists in its answer's
// cache-tag header (petal.yaml `cdn.tagHeader: surrogate-key`, `cache-tag` or `both`), so that
// app/api/petal/route.ts revalidates exactly the pages that rendered a changed node.
// Next.js 15: `import { unstable_cacheTag as cacheTag } from 'next/cache'` and `experimental.useCache`.
import { cacheTag } from 'next/cache';

const PETAL = process.env.PETAL_URL ?? 'http://localhost:8080';

export async function petal<T>(path: string): Promise<T> {
  'use cache';
  const res = await fetch(`${PETAL}${path}`);
  if (!res.ok) throw new Error(`Petal answered ${res.status} for ${path}`);
  const keys = (res.headers.get('surrogate-key') ?? res.headers.get('cache-tag')?.replaceAll(',', ' ') ?? '').split(' ').filter(Boolean);
  cacheTag(...keys);
  return (await res.json()) as T;
}
