// Issue 19: what the metrics cost on a cached Read node, in one run: the same app without and with
// /.metrics (a counter and a histogram observed per request), rounds alternating (read-node-variants.ts).
// Usage: node --import tsx bench/metrics.ts [seconds=5] [rounds=2] [--dist]
import { measureVariants } from './read-node-variants.js';

const [seconds = 5, rounds = 2] = process.argv.slice(2).filter((a) => a !== '--dist').map(Number);
const TOKEN = 'bench-scrape-token';

const rates = await measureVariants({ off: {}, on: { metrics: { enabled: true, token: TOKEN } } }, seconds, rounds, async (apps) => {
  const scraped = await apps.get('on')!.inject({ method: 'GET', url: '/.metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  const counted = scraped.body.split('\n').find((l) => l.startsWith('petal_http_requests_total{route="delivery_read",method="GET",status="200"}'));
  console.log(`scrape: ${scraped.statusCode}, ${counted ?? 'no delivery_read series'}`);
});
const off = rates.get('off')!;
const on = rates.get('on')!;
console.log(`read node, cached: without metrics ${off.toFixed(0)} req/s, with metrics ${on.toFixed(0)} req/s, ratio ${(on / off).toFixed(3)}`);
