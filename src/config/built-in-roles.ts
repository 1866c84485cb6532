// Config layer: the roles that ship with Petal, merged into every SecurityConfig unless configured.
import type { RoleConfig } from './security-schema.js';

/** `definedIn` value of the roles that ship with Petal. */
export const BUILT_IN = 'built-in';

/**
 * Roles that ship with Petal, replaced (not merged) by a configured role of the same name.
 * `anonymous` grants no workspace: content is public only once an operator grants read on it.
 */
export const BUILT_IN_ROLES: ReadonlyMap<string, RoleConfig> = new Map<string, RoleConfig>([
  ['anonymous', {
    // Asset URLs are open to URI checks; the dam workspace's permissions still decide each asset.
    uriPermissions: [
      { path: '/.health', permission: 'get' }, { path: '/dam/*', permission: 'get' }, { path: '/.imaging/*', permission: 'get' },
    ],
    workspacePermissions: new Map(),
  }],
  // The deprecated shop API serves anonymous shoppers (carts, wishlists, orders); its reads still
  // depend on the shop workspaces' permissions, and GET /orders on a signed-in user.
  ['rest-anonymous', {
    // The OpenAPI document and the explorer page that loads it show each reader only what they may call.
    uriPermissions: [
      { path: '/.rest/delivery/*', permission: 'get' }, { path: '/shop/v1/*', permission: 'getAndPost' },
      { path: '/.rest/openapi.json', permission: 'get' }, { path: '/.rest/openapi.yaml', permission: 'get' },
      { path: '/.petal/explorer', permission: 'get' }, { path: '/.petal/explorer/*', permission: 'get' },
      // GraphQL reads with POST too; what it returns is decided by the workspaces' permissions, as for delivery.
      { path: '/.graphql', permission: 'getAndPost' }, { path: '/.graphiql', permission: 'get' }, { path: '/.graphiql/*', permission: 'get' },
    ],
    workspacePermissions: new Map(),
  }],
  ['superuser', {
    uriPermissions: [{ path: '/*', permission: 'getAndPost' }],
    workspacePermissions: new Map([['*', [{ path: '/', permission: 'readWrite' }, { path: '/*', permission: 'readWrite' }]]]),
  }],
]);
