// Issue 18: what cache tags cost on Read node, cached and uncached, in one run: the same app with
// `cdn.tagHeader: none` and `both` (both header forms: the dearest), the response cache on and off,
// rounds alternating (read-node-variants.ts).
// Usage: node --import tsx bench/cache-tags.ts [seconds=5] [rounds=2] [--dist]
import { measureVariants } from './read-node-variants.js';

const [seconds = 5, rounds = 2] = process.argv.slice(2).filter((a) => a !== '--dist').map(Number);

for (const cached of [false, true]) {
  const cache = cached ? { maxBytes: 64 * 1024 * 1024 } : false as const;
  const rates = await measureVariants({ none: { cache, tagHeader: 'none' }, both: { cache, tagHeader: 'both' } }, seconds, rounds);
  const none = rates.get('none')!;
  const both = rates.get('both')!;
  console.log(`read node, ${cached ? 'cached' : 'uncached'}: without tags ${none.toFixed(0)} req/s, with tags ${both.toFixed(0)} req/s, ratio ${(both / none).toFixed(2)}`);
}
