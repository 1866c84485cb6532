// Delivery layer (pages): area inheritance on Read node. For a page whose template enables
// `inheritance` on an area, the components of the same-named area on each ancestor page come first
// (highest ancestor first, each in its natural order), then the page's own. An inherited component
// keeps its own `@path` and `@id` and gets a unique name `<name>_inherited_<depth of its page>`.
// Everything is read through the caller's session, so ACLs apply; nothing is written.
import type { NodeRecord } from '../../store/rows.js';
import type { Session } from '../../repository/session.js';
import type { AreaDefinition } from './templates.js';
import type { PagesRegistry } from './pages-registry.js';
import { templateOf } from './autogeneration.js';
import { childPath, virtualArea } from './virtual-nodes.js';

const INFIX = '_inherited_';

function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  let p = path;
  while (p.lastIndexOf('/') > 0) {
    p = p.slice(0, p.lastIndexOf('/'));
    out.unshift(p);
  }
  return out; // highest first
}

function isInheritable(node: NodeRecord): boolean {
  for (const p of node.properties) if (p[0] === 'inheritable') return p[2] === true || p[2] === 'true';
  return false;
}

/** Rows with the inherited components (and their subtrees) of `page`'s inheriting areas added. */
export async function addInherited(
  rows: readonly NodeRecord[], page: NodeRecord, pages: PagesRegistry, session: Session, depth: number,
): Promise<NodeRecord[]> {
  const id = templateOf(page);
  const template = id === undefined ? undefined : pages.template(id);
  if (template === undefined || !session.types.isA(page.type, 'cms:page')) return [...rows];
  const areas: AreaDefinition[] = [...template.areas.values()].filter((a) => a.inheritance !== undefined && a.inheritance.components !== 'none');
  if (areas.length === 0) return [...rows];
  const ancestors = ancestorsOf(page.path);
  if (ancestors.length === 0) return [...rows];

  const ws = page.workspace;
  // Which ancestors are pages, and which of their areas the caller may read: one read of the highest
  // ancestor's subtree would be too much, so each ancestor and each candidate area is read on its own
  // (a handful at most, all at once), then the readable areas' subtrees in one round trip. A hidden
  // area's components are not shown by a Read node of its page (they have no visible parent), so
  // they are not inherited either.
  const [ancestorNodes, areaNodes] = await Promise.all([
    Promise.all(ancestors.map((a) => session.getNode(ws, a))),
    Promise.all(ancestors.flatMap((a) => areas.map((area) => session.getNode(ws, childPath(a, area.name))))),
  ]);
  const pagePaths = new Set(ancestorNodes
    .filter((n): n is NodeRecord => n !== undefined && session.types.isA(n.type, 'cms:page')).map((n) => n.path));
  const areaPaths = areaNodes.filter((n): n is NodeRecord => n !== undefined && pagePaths.has(n.parentPath)).map((n) => n.path);
  if (areaPaths.length === 0) return [...rows];
  const below = await session.getSubtrees(ws, areaPaths, depth);
  const byParent = new Map<string, NodeRecord[]>();
  for (const r of below) {
    const list = byParent.get(r.parentPath);
    if (list) list.push(r);
    else byParent.set(r.parentPath, [r]);
  }

  const out = [...rows];
  const pageKids = rows.filter((r) => r.parentPath === page.path);
  for (const area of areas) {
    const inh = area.inheritance!;
    const inherited: NodeRecord[] = [];
    for (const anc of ancestors) {
      const kids = (byParent.get(childPath(anc, area.name)) ?? []).slice().sort((a, b) => a.position - b.position);
      for (const c of kids) {
        if (!inh.nodeTypes.some((t) => session.types.isA(c.type, t))) continue;
        if (inh.components === 'filtered' && !isInheritable(c)) continue;
        inherited.push(c);
      }
    }
    if (inherited.length === 0) continue;
    let areaNode = pageKids.find((k) => k.name === area.name);
    if (areaNode === undefined) {
      areaNode = virtualArea(page, area.name, pageKids.reduce((m, k) => Math.max(m, k.position + 1), 0));
      out.push(areaNode);
    }
    // Inherited components sort before the area's own (positions are >= 0).
    let position = -inherited.length;
    const taken = new Set(rows.filter((r) => r.parentPath === areaNode!.path).map((r) => r.name));
    for (const c of inherited) {
      let name = `${c.name}${INFIX}${c.depth - 2}`;
      while (taken.has(name)) name += '_';
      taken.add(name);
      out.push({ ...c, name, parentPath: areaNode.path, position: position++ });
      out.push(...descendants(c.path, byParent));
    }
  }
  return out;
}

function descendants(path: string, byParent: ReadonlyMap<string, NodeRecord[]>): NodeRecord[] {
  const out: NodeRecord[] = [];
  const stack = [path];
  while (stack.length > 0) {
    for (const k of byParent.get(stack.pop()!) ?? []) {
      out.push(k);
      stack.push(k.path);
    }
  }
  return out;
}
