// Repository layer: the Nodes API's writes over the store's WriteTx, inside the caller's
// transaction: permissions and existence are decided against what the transaction sees, every node's
// fate goes into ONE change event of kind 'nodes', and the generation is bumped. Any refusal throws a
// NodeWriteError and the caller rolls back: nothing is half-written.
import { randomUUID } from 'node:crypto';
import { depthOf, joinPath, nameOf, parentOf, ROOT_IDENTIFIER } from '../model/paths.js';
import type { StoredProperty } from '../model/property-type.js';
import { NodeChangeList } from './node-change-list.js';
import {
  NodeWriteError, type NodeInput, type NodeOperation, type NodeWriteOptions, type NodeWriteResult,
} from './node-write.js';
import type { NodeRecord } from '../store/rows.js';
import type { WriteTx } from '../store/write-tx.js';
import { DEFAULT_NODE_TYPE, storable } from './write-import.js';
import { isMaintained, stampMaintained, storedNow } from './maintained-properties.js';

export { MAINTAINED_PROPERTIES, storedNow } from './maintained-properties.js';

interface Context {
  readonly tx: WriteTx;
  readonly ws: string;
  readonly o: NodeWriteOptions;
  readonly now: string;
  readonly changes: NodeChangeList;
}

export async function applyNodeWrites(
  tx: WriteTx, workspace: string, operations: readonly NodeOperation[], options: NodeWriteOptions,
): Promise<NodeWriteResult> {
  const c: Context = { tx, ws: workspace, o: options, now: options.now ?? storedNow(), changes: new NodeChangeList() };
  if (options.ifMatch !== undefined) {
    const node = await readable(c, options.ifMatch.path);
    if (!options.ifMatch.matches(node)) {
      throw new NodeWriteError('stale', `If-Match: ${workspace}:${options.ifMatch.path} has changed since that ETag was read`);
    }
  }
  let node: NodeRecord | undefined;
  for (const op of operations) {
    switch (op.op) {
      case 'create': node = await create(c, op.parentPath, op.node); break;
      case 'update': node = await update(c, op.path, op.node, op.remove ?? []); break;
      case 'delete': await remove(c, op.path); node = undefined; break;
      case 'move': node = await move(c, op.path, op.to, op.before); break;
    }
  }
  const change = c.changes.change(workspace, options.by);
  // In the write's transaction: the event commits (or rolls back) with the nodes.
  if (change !== undefined) await tx.recordChange(change);
  await tx.bumpGeneration();
  return { ...(node !== undefined ? { node } : {}), count: c.changes.count };
}

/** The node at `path` if the caller may read it; a hidden node is missing, exactly. */
async function readable(c: Context, path: string, what = 'node'): Promise<NodeRecord> {
  const node = c.o.guard !== undefined && !c.o.guard.canRead(c.ws, path) ? undefined : await c.tx.getNode(c.ws, path);
  if (node === undefined) throw new NodeWriteError('missing', `No ${what} at ${path} in workspace ${c.ws}`);
  return node;
}

/** The parent of new or moved nodes: the root `/` always exists. */
async function parentExists(c: Context, path: string, what: string): Promise<void> {
  if (path !== '/') await readable(c, path, what);
}

function deny(c: Context, path: string, allowed: boolean, what = ''): void {
  if (!allowed) throw new NodeWriteError('denied', `You may not write ${c.ws}:${path}${what}`);
}

async function create(c: Context, parentPath: string, input: NodeInput): Promise<NodeRecord> {
  await parentExists(c, parentPath, 'parent node');
  deny(c, parentPath, c.o.guard?.mayWrite(c.ws, parentPath) ?? true);
  const path = joinPath(parentPath, input.name);
  // Decided by the rules alone, before looking: the answer tells nothing of a node the caller cannot read.
  deny(c, path, c.o.guard?.mayReplaceSubtree(c.ws, path) ?? true);
  if ((await c.tx.getNode(c.ws, path)) !== undefined) {
    throw new NodeWriteError('exists', `${input.field}name: ${parentPath} already has a child named ${JSON.stringify(input.name)}`);
  }
  await checkIds(c, input);
  return insertTree(c, parentPath, input, (await c.tx.maxChildPosition(c.ws, parentPath)) + 1);
}

/**
 * Fails when an identifier of the subtree cannot be used: it belongs to a node already, or it is the
 * root's. One answer for every such identifier, which never says which node holds it nor whether the
 * caller may read it: a UUID held by a hidden node is refused exactly as one held by a readable node.
 */
async function checkIds(c: Context, input: NodeInput): Promise<void> {
  const ids: [string, string][] = [];
  const collect = (n: NodeInput) => {
    if (n.id !== undefined) ids.push([n.id, n.field]);
    n.children.forEach(collect);
  };
  collect(input);
  if (ids.length === 0) return;
  const used = await c.tx.idsInUse(c.ws, ids.map(([id]) => id));
  used.add(ROOT_IDENTIFIER);
  const clash = ids.find(([id]) => used.has(id));
  if (clash !== undefined) {
    throw new NodeWriteError('identifierInUse', `${clash[1]}identifier: ${clash[0]} cannot be used: it is taken or reserved (leave identifier out for a fresh one)`);
  }
}

/** A new node and its descendants (none of which can exist yet: the node is new). */
async function insertTree(c: Context, parentPath: string, input: NodeInput, position: number): Promise<NodeRecord> {
  const path = joinPath(parentPath, input.name);
  const record: NodeRecord = {
    id: input.id ?? randomUUID(), workspace: c.ws, path, parentPath, name: input.name, depth: depthOf(path), position,
    type: input.type ?? DEFAULT_NODE_TYPE, mixins: input.mixins ?? [],
    properties: storable(stamp(content(c, input.properties), c, true)),
  };
  await c.tx.insertNode(record);
  c.changes.created(record);
  let childPosition = 0;
  // mayReplaceSubtree of the new node (create) covers everything below it.
  for (const child of input.children) await insertTree(c, path, child, childPosition++);
  return record;
}

async function update(c: Context, path: string, input: NodeInput, remove: readonly string[]): Promise<NodeRecord> {
  const node = await readable(c, path);
  deny(c, path, c.o.guard?.mayWrite(c.ws, path) ?? true);
  if (input.name !== node.name) {
    throw new NodeWriteError('invalid', `${input.field}name: ${JSON.stringify(input.name)} is not the name of ${path} (rename with moveTo)`);
  }
  if (input.id !== undefined && input.id !== node.id) {
    throw new NodeWriteError('invalid', `${input.field}identifier: ${input.id} is not the identifier of ${path}`);
  }
  for (const name of remove) {
    // The Properties API's DELETE: a missing property is a 404, a maintained one is not the caller's to remove.
    if (maintained(c, name)) throw new NodeWriteError('invalid', `${name} is maintained by Petal and cannot be removed`);
    if (!node.properties.some(([n]) => n === name)) throw new NodeWriteError('missing', `No property ${name} at ${path} in workspace ${c.ws}`);
  }
  const gone = new Set(remove);
  const properties: StoredProperty[] = node.properties.filter(([name]) => !gone.has(name));
  for (const p of content(c, input.properties)) {
    const at = properties.findIndex(([name]) => name === p[0]);
    if (at === -1) properties.push(p);
    else properties[at] = p;
  }
  const record: NodeRecord = {
    ...node, type: input.type ?? node.type, mixins: input.mixins ?? node.mixins, properties: storable(stamp(properties, c, false)),
  };
  await c.tx.replaceNode(record);
  c.changes.changed(record);
  for (const child of input.children) {
    const childPath = joinPath(path, child.name);
    deny(c, childPath, c.o.guard?.canRead(c.ws, childPath) ?? true);
    if ((await c.tx.getNode(c.ws, childPath)) !== undefined) await update(c, childPath, child, []);
    else await create(c, path, child);
  }
  return record;
}

function maintained(c: Context, name: string): boolean {
  return isMaintained(name, c.o.publishing === true);
}

/** The body's properties without the maintained ones. */
function content(c: Context, properties: readonly StoredProperty[]): StoredProperty[] {
  return properties.filter(([name]) => !maintained(c, name));
}

function stamp(properties: StoredProperty[], c: Context, created: boolean): StoredProperty[] {
  return stampMaintained(properties, { by: c.o.by, now: c.now, created, publishing: c.o.publishing === true });
}

async function remove(c: Context, path: string): Promise<void> {
  await readable(c, path);
  deny(c, path, c.o.guard?.mayReplaceSubtree(c.ws, path) ?? true, ' (or a node below it)');
  const listed = c.changes.truncated ? undefined : await c.tx.subtreeNodes(c.ws, path, c.changes.listLimit);
  c.changes.removed(listed, await c.tx.deleteSubtree(c.ws, path));
}

async function move(c: Context, path: string, to: string, before: string | undefined): Promise<NodeRecord> {
  await readable(c, path);
  const guard = c.o.guard;
  deny(c, path, guard?.mayReplaceSubtree(c.ws, path) ?? true, ' (or a node below it)');
  const parent = parentOf(to);
  if (to !== path) {
    if (to.startsWith(`${path}/`)) throw new NodeWriteError('invalid', `moveTo: ${to} is inside ${path}`);
    await parentExists(c, parent, 'parent node');
    deny(c, parent, guard?.mayWrite(c.ws, parent) ?? true);
    deny(c, to, guard?.mayReplaceSubtree(c.ws, to) ?? true);
    if ((await c.tx.getNode(c.ws, to)) !== undefined) throw new NodeWriteError('exists', `moveTo: ${parent} already has a child named ${JSON.stringify(nameOf(to))}`);
    const listed = c.changes.truncated ? undefined : await c.tx.subtreeNodes(c.ws, path, c.changes.listLimit);
    await c.tx.moveSubtree(c.ws, path, to, (await c.tx.maxChildPosition(c.ws, parent)) + 1);
    if (listed === undefined || listed.length >= c.changes.listLimit) c.changes.truncate(listed?.length ?? 1);
    else for (const n of listed) c.changes.moved({ id: n.id, type: n.type, path: to + n.path.slice(path.length) }, n.path);
  } else if (before !== undefined) {
    deny(c, parent, guard?.mayWrite(c.ws, parent) ?? true); // the parent's order of children changes
  }
  if (before !== undefined && before !== nameOf(to)) await placeBefore(c, to, before);
  return readable(c, to);
}

/**
 * Puts the node at `path` before its sibling `before`, giving new positions only where the order needs
 * them (positions keep gaps left by deletions); every sibling whose position changes is `moved` in
 * place (`from` = its own path), so consumers that keep natural order see it.
 */
async function placeBefore(c: Context, path: string, before: string): Promise<void> {
  const parent = parentOf(path);
  const beforePath = joinPath(parent, before);
  if (c.o.guard !== undefined && !c.o.guard.canRead(c.ws, beforePath)) {
    throw new NodeWriteError('invalid', `orderBefore: ${parent} has no child named ${JSON.stringify(before)}`);
  }
  const siblings = await c.tx.children(c.ws, parent);
  const self = siblings.find((s) => s.path === path);
  const others = siblings.filter((s) => s.path !== path);
  const at = others.findIndex((s) => s.name === before);
  if (self === undefined || at === -1) throw new NodeWriteError('invalid', `orderBefore: ${parent} has no child named ${JSON.stringify(before)}`);
  const order = [...others.slice(0, at), self, ...others.slice(at)];
  let previous = -Infinity;
  for (const s of order) {
    // Ties are ordered by name, so a position equal to the previous one is moved up too.
    const position = s !== self && s.position > previous ? s.position : Math.max(previous + 1, 0);
    if (position !== s.position) {
      await c.tx.setPosition(c.ws, s.path, position);
      c.changes.moved(s, s.path);
    } else if (s === self) c.changes.moved(s, s.path);
    previous = position;
  }
}
