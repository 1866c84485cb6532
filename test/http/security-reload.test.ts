// Users added while the server runs (as `petal user add` writes them) take effect without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { hashPassword } from '../../src/security/password-hash.js';
import { addUser } from '../../src/security/users-file.js';

let dir: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-secreload-'));
  const endpoints = join(dir, 'modules', 'm', 'restEndpoints', 'private');
  mkdirSync(endpoints, { recursive: true });
  writeFileSync(join(endpoints, 'notes.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\nbypassWorkspaceAcls: true\n');
  writeFileSync(join(dir, 'petal.yaml'), [
    'store: sqlite:./petal.db', 'modules: [./modules]', 'port: 0', 'host: 127.0.0.1', 'logLevel: silent',
    'security:', '  roles:', '    reader:', '      uriPermissions: [{ path: /.rest/private/*, permission: get }]', '',
  ].join('\n'));
  server = await startServer(loadConfig({ config: join(dir, 'petal.yaml') }), pino({ level: 'silent' }));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('security reload', () => {
  it('accepts a user added to the security folder after start', async () => {
    const auth = { authorization: `Basic ${Buffer.from('zoe:long-enough-pw').toString('base64')}` };
    const url = `${server.url}/.rest/private/notes/@nodes`;
    expect((await fetch(url, { headers: auth })).status).toBe(401);
    addUser(join(dir, 'security', 'users.yaml'), { name: 'zoe', passwordHash: await hashPassword('long-enough-pw'), roles: ['reader'] });
    const end = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < end) {
      status = (await fetch(url, { headers: auth })).status;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(status).toBe(200);
  });
});
