// Shared pieces of the shop tests: an app serving /shop/v1 over the demo catalog (built-in roles, the
// shop workspaces readable by anonymous callers, users alice and bob), and a client with a cookie jar.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import type { ShopConfig } from '../../src/config/load-config.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf } from '../security-http/helpers.js';

export const DEMO_CONTENT = join(import.meta.dirname, '..', '..', 'demo', 'content');
export const SHOP_FILES = readdirSync(DEMO_CONTENT).filter((f) => f.startsWith('shop')).map((f) => join(DEMO_CONTENT, f));

/** Ids of the demo catalog (demo/content/shop*.yaml). */
export const IDS = {
  catalog: '5ca70000-0000-4000-8000-000000000001',
  plants: '5ca71000-0000-4000-8000-000000000001',
  perennials: '5ca71000-0000-4000-8000-000000000002',
  roses: '5ca71000-0000-4000-8000-000000000003',
  tools: '5ca71000-0000-4000-8000-000000000004',
  lavender: '5ca72000-0000-4000-8000-000000000001',
  rose: '5ca72000-0000-4000-8000-000000000002',
  hellebore: '5ca72000-0000-4000-8000-000000000003',
  shears: '5ca72000-0000-4000-8000-000000000004',
  seedTin: '5ca72000-0000-4000-8000-000000000005',
  standard: '5e1a0000-0000-4000-8000-000000000001',
  express: '5e1a0000-0000-4000-8000-000000000002',
} as const;

export const PASSWORD = 'correct horse battery staple';
const SHOP_WORKSPACES = ['shopCatalogs', 'shopCategories', 'shopProducts', 'shopCurrencies', 'shopShippingMethods'];

/** The `security:` section of the shop tests; `hiddenTools`: anonymous callers may not read the pruning shears. */
export async function shopSecurity(o: { hiddenTools?: boolean } = {}): Promise<Record<string, unknown>> {
  const hash = await hashOf(PASSWORD);
  const read = [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }];
  const workspacePermissions: Record<string, unknown[]> = Object.fromEntries(SHOP_WORKSPACES.map((w) => [w, read]));
  if (o.hiddenTools) {
    workspacePermissions.shopProducts = [...read, { path: '/petal-gardens/pruning-shears', permission: 'deny' }];
  }
  return {
    authenticatedRoles: ['anonymous', 'rest-anonymous'],
    users: { alice: { passwordHash: hash }, bob: { passwordHash: hash } },
    roles: { anonymous: { uriPermissions: [], workspacePermissions } },
  };
}

export async function createShopApp(o: { hiddenTools?: boolean; content?: Record<string, string>; shopConfig?: ShopConfig } = {}): Promise<TestApp> {
  return createTestApp({
    contentPaths: SHOP_FILES,
    ...(o.content ? { content: o.content } : {}),
    shop: true,
    ...(o.shopConfig ? { shopConfig: o.shopConfig } : {}),
    security: await shopSecurity(o),
  });
}

export const BASE = '/shop/v1';

export interface ShopRes {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly body: any;
  readonly setCookies: readonly string[];
}

/** A browser-like client: keeps the shop cookies it is given and sends them back. */
export class ShopClient {
  readonly jar = new Map<string, string>();
  /** `remoteAddress`: the client address the app sees (default 127.0.0.1). */
  constructor(readonly t: TestApp, readonly user?: string, readonly remoteAddress?: string) {}

  async send(method: InjectOptions['method'], path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ShopRes> {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await this.t.app.inject({
      method, url: `${BASE}${path}`,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(this.user ? { authorization: basic(this.user, PASSWORD) } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      ...(this.remoteAddress !== undefined ? { remoteAddress: this.remoteAddress } : {}),
    });
    const raw = res.headers['set-cookie'];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
    for (const c of res.cookies) {
      if (c.maxAge === 0 || c.value === '' || (c.expires !== undefined && c.expires.getTime() < Date.now())) this.jar.delete(c.name);
      else this.jar.set(c.name, c.value);
    }
    let parsed: unknown = res.body;
    try { parsed = JSON.parse(res.body); } catch { /* not JSON */ }
    return { status: res.statusCode, headers: res.headers, body: parsed as any, setCookies };
  }

  get = (path: string, headers?: Record<string, string>) => this.send('GET', path, undefined, headers);
  post = (path: string, body?: unknown, headers?: Record<string, string>) => this.send('POST', path, body, headers);
  put = (path: string, body?: unknown, headers?: Record<string, string>) => this.send('PUT', path, body, headers);
  del = (path: string, headers?: Record<string, string>) => this.send('DELETE', path, undefined, headers);
}

export const ADDRESS = {
  firstName: 'Ada', lastName: 'Lovelace', street: 'Gartenweg 1', postalCode: '10115', city: 'Berlin', country: 'DE', email: 'ada@example.com',
};
export const ORDER_BODY = { billingAddress: ADDRESS, shippingAddress: ADDRESS, shippingMethodId: IDS.standard };
