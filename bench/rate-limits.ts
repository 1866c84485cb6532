// Issue 19: what rate limits cost on a cached Read node, in one run: the same app without limits, with
// counters in memory and with counters in Redis (127.0.0.1:6379), limits high enough never to refuse;
// one client address, rounds alternating (read-node-variants.ts).
// Usage: node --import tsx bench/rate-limits.ts [seconds=5] [rounds=2] [--dist]
import { measureVariants } from './read-node-variants.js';

const [seconds = 5, rounds = 2] = process.argv.slice(2).filter((a) => a !== '--dist').map(Number);
const HIGH = { deliveryReads: { max: 1_000_000_000, windowMs: 86_400_000 } };

const rates = await measureVariants({
  off: {},
  memory: { rateLimit: { enabled: true, rules: HIGH } },
  redis: { rateLimit: { enabled: true, redis: 'redis://127.0.0.1:6379', keyPrefix: `petal-rl-bench-${process.pid}:`, rules: HIGH } },
}, seconds, rounds);
const off = rates.get('off')!;
for (const [name, r] of rates) console.log(`read node, cached, limits ${name}: ${r.toFixed(0)} req/s (${(r / off).toFixed(2)} of off)`);
