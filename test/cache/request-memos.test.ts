// Memos that speed up repeated work keep nothing of what a flood of distinct, long request values
// brings: dependency-key hashes remember rows' paths only (not a path a request looked up), route
// kinds and Accept-Language resolutions only short values. Measured as heap growth after full
// collections, each against what the memo held before these bounds (megabytes here).
import type { FastifyRequest } from 'fastify';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Dependencies, rowHashMemoBytes } from '../../src/repository/dependencies.js';
import type { SiteConfig } from '../../src/config/load-config.js';
import type { EndpointRegistry } from '../../src/delivery/endpoint-registry.js';
import { languageKey } from '../../src/http/response-cache-key.js';
import { routeClassifier } from '../../src/metrics/route-kind.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapGrowth(run: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  const before = process.memoryUsage().heapUsed;
  run();
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed - before;
}

const MB = 1024 * 1024;
const N = 3_000;
/** A long path of its own for each i, two bytes a character (one is not Latin-1). */
const longPath = (i: number) => `/€${i}/${'segment/'.repeat(750)}`;

describe('request values do not grow the memos', () => {
  it('dependency keys of paths looked up are hashed, not remembered; rows are, within 4 MiB', () => {
    const grown = heapGrowth(() => {
      for (let i = 0; i < N; i++) new Dependencies().node('website', longPath(i));
    });
    expect(grown).toBeLessThan(2 * MB); // 36 MB when every path looked up was remembered
    const d = new Dependencies();
    for (let i = 0; i < 100_000; i++) d.nodes('website', [{ path: `/rows/page-${i}/${'x'.repeat(100)}` }]);
    expect(rowHashMemoBytes()).toBeLessThanOrEqual(4 * MB);
    expect(rowHashMemoBytes()).toBeGreaterThan(0);
  });

  it('route kinds of long delivery paths are not remembered', () => {
    const registry = { match: () => undefined } as unknown as EndpointRegistry;
    const kindOf = routeClassifier(registry, '');
    const grown = heapGrowth(() => {
      for (let i = 0; i < N; i++) {
        const request = { routeOptions: { url: '/.rest/*' }, canonicalPath: `/.rest/delivery${longPath(i)}` } as unknown as FastifyRequest;
        expect(kindOf(request)).toBe('other');
      }
    });
    expect(grown).toBeLessThan(2 * MB); // 36 MB when the last 4,096 paths were remembered
  });

  it('long Accept-Language values are resolved, not remembered', () => {
    const site: SiteConfig = { name: 's', locales: ['en', 'de'], defaultLocale: 'en' };
    const grown = heapGrowth(() => {
      for (let i = 0; i < 500; i++) expect(languageKey(undefined, `de, ${'x-private;q=0.1, '.repeat(250)}x${i}`, site)).toBe('de');
    });
    expect(grown).toBeLessThan(1 * MB); // 4 MB when the last 512 values were remembered
  });
});
