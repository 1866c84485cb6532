// `petal serve` with webhooks (issue 18): a webhook whose secret's environment variable is unset stops
// the start with a configuration error naming it; configured, a Nodes API write reaches the receiver,
// signed, and close() stops the sender.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import type { PetalConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/config/config-error.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { verifySignature } from '../../src/notify/signature.js';
import { startReceiver, until, type Receiver } from '../notify/receiver.js';

const WRITABLE = {
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/*', permission: 'getAndPost' }],
      workspacePermissions: { '*': [{ path: '/', permission: 'readWrite' }, { path: '/*', permission: 'readWrite' }] },
    },
  },
};

let dir: string | undefined;
let server: RunningServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await receiver?.close();
  delete process.env.H_HOOKS_SERVE_SECRET;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function config(url: string): PetalConfig {
  dir = mkdtempSync(join(tmpdir(), 'h-hooks-serve-'));
  return {
    store: `sqlite:${join(dir, 'petal.db')}`, modules: [], content: [], port: 0, host: '127.0.0.1', namespace: 'cms', contextPath: '', sites: [],
    corsOrigins: [], logLevel: 'silent', onUuidCollision: 'new', nodeTypes: {}, security: loadSecurity(WRITABLE, dir),
    links: { contextPath: '', extension: '', mappings: [] }, trustProxy: false, isDemo: false, configFile: join(dir, 'petal.yaml'),
    webhooks: [{ name: 'site', url, secretEnv: 'H_HOOKS_SERVE_SECRET', events: ['changed'] }],
  };
}

it('refuses to start when a webhook secret is not in the environment', async () => {
  const c = config('http://127.0.0.1:9/hook');
  const started = startServer(c, pino({ level: 'silent' }));
  await expect(started).rejects.toThrow(ConfigError);
  await expect(started).rejects.toThrow('H_HOOKS_SERVE_SECRET');
});

it('sends a Nodes API write to the webhook, signed', async () => {
  receiver = await startReceiver();
  process.env.H_HOOKS_SERVE_SECRET = 'serve-secret';
  server = await startServer(config(receiver.url), pino({ level: 'silent' }));
  const res = await server.app.inject({
    method: 'PUT', url: '/.rest/nodes/v1/website/', payload: { name: 'home', type: 'mgnl:page', properties: [] }, headers: { 'content-type': 'application/json' },
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  await until(() => receiver!.received.length === 1, () => receiver!.received);
  const [r] = receiver.received;
  expect(r!.payload).toMatchObject({ id: 'site-1', event: 'changed', workspace: 'website', nodes: [{ path: '/home', type: 'cms:page' }] });
  expect(verifySignature('serve-secret', r!.body, r!.headers['petal-signature'] as string)).toBe(true);
});
