// Memory under floods of misses (issue 28, point 6), measured on the process: a `petal serve` child
// over the demo content (SQLite) with small budgets is flooded with random long 404 paths (absurd
// ones of 6,000 characters, and 600-character ones, which are cached) and with random orderBy and
// filters on a query endpoint; after full collections in the child, its RSS may exceed its idle RSS
// by at most the sum of the configured budgets plus the margin the README states, plus what V8's
// young generation grew by (Node.js 24 doubles it under load; README: Memory).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flood, random404Path, randomQueryPath, startFloodServer, type Budgets, type FloodServer } from '../helpers/memory-flood.js';

const MiB = 1024 * 1024;
const BUDGETS: Budgets = { responseCache: 2 * MiB, subtreeCache: 2 * MiB, aclCache: 1 * MiB, queryIndex: 1 * MiB };
/**
 * README (Memory): what no budget counts. The fixed-size memos (statements 8 MiB, query kinds 4 MiB,
 * row hashes 4 MiB, canonical paths and route kinds under 10 MiB) and V8's slack above what is live.
 */
const MARGIN = 64 * MiB;
const READ = '/.rest/delivery/plants/v1';

let server: FloodServer;
let idle = 0;
/** V8's young generation at idle: Node.js 22+ grow it under load (README: Memory), outside every budget. */
let idleNewSpace = 0;

beforeAll(async () => {
  server = await startFloodServer(BUDGETS);
  // Each kind of request once, so that idle includes the code and the pools the floods use.
  await flood(server.port, 100, (i) => (i % 2 === 0 ? random404Path(READ, 200) : randomQueryPath(READ)), 4);
  ({ vmRss: idle, newSpace: idleNewSpace } = await server.usage());
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const allowed = (newSpace: number) => idle + BUDGETS.responseCache + BUDGETS.subtreeCache + BUDGETS.aclCache + BUDGETS.queryIndex + MARGIN
  + Math.max(0, newSpace - idleNewSpace);
const mb = (n: number) => `${(n / MiB).toFixed(1)} MB`;

describe('process memory under floods of misses', { timeout: 180_000 }, () => {
  it('random 6,000-character 404 paths', async () => {
    const statuses = await flood(server.port, 6_000, () => random404Path(READ, 6_000));
    expect([...statuses.keys()]).toEqual([404]);
    const { vmRss, newSpace } = await server.usage();
    expect(vmRss, `RSS ${mb(vmRss)}, idle ${mb(idle)}, young generation ${mb(idleNewSpace)} → ${mb(newSpace)}`).toBeLessThanOrEqual(allowed(newSpace));
  });

  it('random 600-character 404 paths (cached until the budgets are full)', async () => {
    const statuses = await flood(server.port, 6_000, () => random404Path(READ, 600));
    expect([...statuses.keys()]).toEqual([404]);
    const { vmRss, newSpace } = await server.usage();
    expect(vmRss, `RSS ${mb(vmRss)}, idle ${mb(idle)}, young generation ${mb(idleNewSpace)} → ${mb(newSpace)}`).toBeLessThanOrEqual(allowed(newSpace));
  });

  it('random orderBy and filters on a query endpoint', async () => {
    const statuses = await flood(server.port, 6_000, () => randomQueryPath(READ));
    // A value that is no date or number for a property that holds one is refused (400); most pass.
    expect([...statuses.keys()].every((s) => s === 200 || s === 400)).toBe(true);
    expect(statuses.get(200)).toBeGreaterThan(4_000);
    const { vmRss, newSpace } = await server.usage();
    expect(vmRss, `RSS ${mb(vmRss)}, idle ${mb(idle)}, young generation ${mb(idleNewSpace)} → ${mb(newSpace)}`).toBeLessThanOrEqual(allowed(newSpace));
  });
});
