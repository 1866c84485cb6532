// OpenAPI: the Nodes, Commands and shop APIs, described briefly (their bodies are documented in the
// README); each operation is listed only when the caller's URI permissions allow its method.
import { COMMANDS_PREFIX, NODES_PREFIX, SHOP_PREFIX } from '../config/api-prefixes.js';
import type { UriAccess } from '../security/uri-permissions.js';
import { errors, jsonResponse } from './components.js';
import type { Json, Method, Operation, PathItem } from './document-types.js';

const pathParam = (name: string, description: string): Json =>
  ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const JSON_BODY: Json = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/AnyObject' } } } };
const ok = (description: string) => ({ 200: jsonResponse(description, 'AnyObject') });

interface Spec {
  readonly method: Method;
  /** The OpenAPI path, and a concrete path of the same shape for the URI permission check. */
  readonly path: string;
  readonly sample: string;
  readonly op: Operation;
}

function nodesSpecs(): Spec[] {
  const path = `${NODES_PREFIX}/{workspace}/{path}`;
  const sample = `${NODES_PREFIX}/workspace/node`;
  const params = [pathParam('workspace', 'Workspace name'), pathParam('path', 'Node path; may span several segments')];
  const tags = ['Nodes API'];
  const failures = errors(400, 401, 403, 404, 409, 412, 503);
  return [
    { method: 'get', path, sample, op: { operationId: 'nodes_read', summary: 'Read a node with its properties (depth, excludeNodeTypes, includeMetadata)', tags, parameters: params, responses: { ...ok('The node'), ...failures } } },
    { method: 'put', path, sample, op: { operationId: 'nodes_create', summary: 'Create a child node', tags, parameters: params, requestBody: JSON_BODY, responses: { ...ok('Created'), ...failures } } },
    { method: 'post', path, sample, op: { operationId: 'nodes_update', summary: 'Update a node', tags, parameters: params, requestBody: JSON_BODY, responses: { ...ok('Updated'), ...failures } } },
    { method: 'delete', path, sample, op: { operationId: 'nodes_delete', summary: 'Delete a node', tags, parameters: params, responses: { ...ok('Deleted'), ...failures } } },
  ];
}

function commandsSpecs(): Spec[] {
  const tags = ['Commands API'];
  const failures = errors(400, 401, 403, 404, 409, 503);
  return [
    {
      method: 'post', path: `${COMMANDS_PREFIX}/{command}`, sample: `${COMMANDS_PREFIX}/activate`,
      op: {
        operationId: 'commands_run', summary: 'Publish (activate) or unpublish (deactivate) a node, now or at publicationDate', tags,
        parameters: [{ ...pathParam('command', 'The command'), schema: { type: 'string', enum: ['activate', 'deactivate', 'publish', 'unpublish'] } }],
        requestBody: JSON_BODY, responses: { ...ok('Done'), 202: jsonResponse('Scheduled', 'AnyObject'), ...failures },
      },
    },
    { method: 'get', path: `${COMMANDS_PREFIX}/schedules`, sample: `${COMMANDS_PREFIX}/schedules`, op: { operationId: 'commands_schedules', summary: 'Pending schedules of nodes the caller may write', tags, responses: { ...ok('The schedules'), ...failures } } },
    {
      method: 'delete', path: `${COMMANDS_PREFIX}/schedules/{id}`, sample: `${COMMANDS_PREFIX}/schedules/id`,
      op: { operationId: 'commands_cancel', summary: 'Cancel a schedule', tags, parameters: [pathParam('id', 'Schedule id')], responses: { ...ok('Cancelled'), ...failures } },
    },
  ];
}

function shopSpecs(): Spec[] {
  const tags = ['Shop (deprecated)'];
  const failures = errors(400, 401, 403, 404, 409, 422, 429, 503);
  const read = (p: string, operationId: string, summary: string): Spec => {
    const hasId = p.includes('{id}');
    return {
      method: 'get', path: `${SHOP_PREFIX}${p}`, sample: `${SHOP_PREFIX}${p.replace('{id}', 'id')}`,
      op: { operationId, summary, tags, ...(hasId ? { parameters: [pathParam('id', 'Identifier')] } : {}), responses: { ...ok(summary), ...failures } },
    };
  };
  const write = (method: Method, p: string, operationId: string, summary: string, body: boolean): Spec => ({
    method, path: `${SHOP_PREFIX}${p}`, sample: `${SHOP_PREFIX}${p}`,
    op: { operationId, summary, tags, ...(body ? { requestBody: JSON_BODY } : {}), responses: { ...ok(summary), ...failures } },
  });
  return [
    read('/catalog/{id}', 'shop_catalog', 'A catalog'),
    read('/catalog/{id}/products', 'shop_catalogProducts', 'Products of a catalog'),
    read('/category/{id}', 'shop_category', 'A category'),
    read('/category/{id}/products', 'shop_categoryProducts', 'Products of a category'),
    read('/shipping/methods/{id}', 'shop_shippingMethod', 'A shipping method'),
    read('/cart', 'shop_cart', 'The caller\'s cart'),
    write('post', '/cart', 'shop_createCart', 'Create a cart', true),
    write('delete', '/cart', 'shop_deleteCart', 'Delete the cart', false),
    write('post', '/cart/item', 'shop_addItem', 'Add a product to the cart', true),
    write('put', '/cart/item', 'shop_setItem', 'Set the quantity of a cart line', true),
    read('/wishlist', 'shop_wishlist', 'The caller\'s wishlist'),
    write('post', '/wishlist', 'shop_createWishlist', 'Create a wishlist or add to it', true),
    write('delete', '/wishlist', 'shop_deleteWishlist', 'Delete the wishlist', false),
    write('post', '/order', 'shop_order', 'Order the cart', true),
    read('/orders', 'shop_orders', 'The signed-in caller\'s orders'),
  ];
}

export interface ManagementOptions {
  readonly access: UriAccess;
  /** Publishing on: the Commands API answers (it is a 404 otherwise). */
  readonly publishing: boolean;
  readonly shop: boolean;
}

/** The allowed operations by path, and the tags they use. */
export function managementPaths(o: ManagementOptions): { paths: Record<string, PathItem>; tags: Set<string> } {
  const specs = [...nodesSpecs(), ...(o.publishing ? commandsSpecs() : []), ...(o.shop ? shopSpecs() : [])];
  const paths: Record<string, Record<string, Operation>> = {};
  const tags = new Set<string>();
  for (const s of specs) {
    if (o.access.decide(s.sample, s.method.toUpperCase()) !== 'allow') continue;
    (paths[s.path] ??= {})[s.method] = s.op;
    for (const t of s.op.tags) tags.add(t);
  }
  return { paths, tags };
}

export const MANAGEMENT_TAGS = [
  { name: 'Nodes API', description: 'Read and write nodes of any workspace (workspace permissions apply)' },
  { name: 'Commands API', description: 'Publishing commands and their schedules' },
  { name: 'Shop (deprecated)', description: 'The deprecated /shop/v1 API' },
];
