// Rate limit defaults and exemptions (issue 29, point 3): reads and queries are not limited unless
// configured, so a site behind a CDN or an SSR server (a few addresses for every visitor) and a load
// test never meet 429; logins, shop writes and content writes keep their limits. Configured read limits
// spare exempt addresses (CIDR ranges, trustProxy's keywords) and requests carrying the shared secret.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { EXEMPT_SECRET_HEADER } from '../../src/http/rate-limit-exempt.js';
import { rateLimitOptionsOf } from '../../src/main.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const DEFINITIONS: Record<string, string> = {
  'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n',
};
const CONTENT: Record<string, string> = {
  'website.site.yaml': `'site':\n  'jcr:primaryType': 'mgnl:page'\n  'title': 'Home'\n`,
};
const READ = '/.rest/delivery/pages/site';
const QUERY = '/.rest/delivery/pages?title=Home';
const MINUTE = 60_000;
const SECRET = 'ssr-secret-0123456789abcdef';

/** A petal.yaml in a fresh folder, loaded as `petal serve --config` loads it. */
function configOf(yaml: string): ReturnType<typeof loadConfig> {
  const dir = mkdtempSync(join(tmpdir(), 'petal-rl-'));
  try {
    writeFileSync(join(dir, 'petal.yaml'), yaml);
    return loadConfig({ config: join(dir, 'petal.yaml') }, {}, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('default rate limits (no rateLimit: in petal.yaml)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ definitions: DEFINITIONS, content: CONTENT, rateLimit: rateLimitOptionsOf(configOf('port: 8080\n'), {}) });
  });
  afterAll(async () => t.close());

  it('lets one address make 1,500 reads and 400 queries (a CDN edge, an SSR server, a load test)', async () => {
    for (let i = 0; i < 1_500; i++) {
      const res = await t.app.inject({ method: 'GET', url: READ, remoteAddress: '10.5.0.1' });
      if (res.statusCode !== 200) expect.fail(`read ${i + 1} answered ${res.statusCode}`);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    for (let i = 0; i < 400; i++) {
      const res = await t.app.inject({ method: 'GET', url: QUERY, remoteAddress: '10.5.0.1' });
      if (res.statusCode !== 200) expect.fail(`query ${i + 1} answered ${res.statusCode}`);
    }
  });

  it('still limits logins, writes and shop writes', async () => {
    const login = await t.app.inject({
      method: 'POST', url: '/.auth/login', remoteAddress: '10.5.0.2', payload: 'mgnlUserId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(login.headers['ratelimit-limit']).toBe('30');
    const write = await t.app.inject({ method: 'PUT', url: '/.rest/nodes/v1/website/site', remoteAddress: '10.5.0.2', payload: {} });
    expect(write.headers['ratelimit-limit']).toBe('300');
  });
});

describe('exemptions from configured limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    const config = configOf(`rateLimit:
  deliveryReads: { max: 2, windowMs: ${MINUTE} }
  queries: { max: 2, windowMs: ${MINUTE} }
  exempt: [10.9.0.0/16, loopback]
  exemptSecretEnv: PETAL_SSR_SECRET
`);
    t = await createTestApp({ definitions: DEFINITIONS, content: CONTENT, rateLimit: rateLimitOptionsOf(config, { PETAL_SSR_SECRET: SECRET }) });
  });
  afterAll(async () => t.close());

  const read = (remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: READ, remoteAddress, headers });

  it('does not count an exempt range, the IPv4-mapped form of it, or loopback', async () => {
    for (const address of ['10.9.1.1', '::ffff:10.9.1.1', '127.0.0.1', '::1']) {
      for (let i = 0; i < 5; i++) expect((await read(address)).statusCode).toBe(200);
    }
  });

  it('counts other addresses', async () => {
    expect((await read('10.8.0.1')).statusCode).toBe(200);
    expect((await read('10.8.0.1')).statusCode).toBe(200);
    expect((await read('10.8.0.1')).statusCode).toBe(429);
  });

  it('does not count requests sending the shared secret; a wrong secret is counted', async () => {
    for (let i = 0; i < 5; i++) expect((await read('10.7.0.1', { [EXEMPT_SECRET_HEADER]: SECRET })).statusCode).toBe(200);
    expect((await read('10.7.0.2', { [EXEMPT_SECRET_HEADER]: 'guess' })).statusCode).toBe(200);
    expect((await read('10.7.0.2', { [EXEMPT_SECRET_HEADER]: 'guess' })).statusCode).toBe(200);
    expect((await read('10.7.0.2', { [EXEMPT_SECRET_HEADER]: 'guess' })).statusCode).toBe(429);
  });
});

describe('rateLimit configuration', () => {
  it('refuses an exempt entry that is not an address or a range, naming it', () => {
    let caught: unknown;
    try { configOf('rateLimit:\n  exempt: [10.0.0.0/99]\n'); } catch (err) { caught = err; }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(String((caught as Error).message)).toMatch(/rateLimit\.exempt/);
  });

  it('stops the start when the secret variable is not set or too short to be a secret', () => {
    const config = configOf('rateLimit:\n  exemptSecretEnv: PETAL_SSR_SECRET\n');
    expect(() => rateLimitOptionsOf(config, {})).toThrow(/PETAL_SSR_SECRET.*not set/);
    expect(() => rateLimitOptionsOf(config, { PETAL_SSR_SECRET: 'short' })).toThrow(/shorter than 16/);
    expect(rateLimitOptionsOf(config, { PETAL_SSR_SECRET: SECRET }).exemptSecret).toBe(SECRET);
  });
});
