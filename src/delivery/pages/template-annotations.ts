// Delivery layer (pages): the page editor's comments for a page (`/.rest/template-annotations/v1<page>`),
// as the original's front-end helpers request them in preview: a flat map from the path of the page,
// of each area and of each component below it to the comment the editor reads (`cms:page …`,
// `cms:area …`, `cms:component …`), made from the templates Petal already reads. Child pages are not
// part of a page. Nothing here edits; the map only keeps preview mode of those front ends working.
import type { Session } from '../../repository/session.js';
import type { NodeRecord } from '../../store/rows.js';
import { templateOf } from './autogeneration.js';
import type { PagesRegistry } from './pages-registry.js';
import type { AreaDefinition, TemplateDefinition } from './templates.js';

const PAGE = 'cms:page';
const AREA = 'cms:area';
const COMPONENT = 'cms:component';
/** Levels of areas and components below a page that are read (one batched read per level). */
const MAX_LEVELS = 32;

type Attribute = readonly [name: string, value: string | number | boolean | undefined];

/** `name="value"` pairs; empty strings and absent values are left out, as the original's helpers do. */
function attributes(list: readonly Attribute[]): string {
  let out = '';
  for (const [name, value] of list) {
    if (value === undefined || value === '') continue;
    out += ` ${name}="${String(value).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`;
  }
  return out;
}

function text(node: NodeRecord, name: string): string | undefined {
  const v = node.properties.find((p) => p[0] === name)?.[2];
  return v === undefined || Array.isArray(v) ? undefined : String(v);
}

/** 0 not activated, 1 modified since activation, 2 activated (the editor's status markers). */
function activationStatus(node: NodeRecord): number {
  const status = text(node, 'cms:activationStatus');
  if (status === undefined || status === '' || status === 'false') return 0;
  const modified = Date.parse(text(node, 'cms:lastModified') ?? '');
  const activated = Date.parse(text(node, 'cms:lastActivated') ?? '');
  return modified > activated ? 1 : 2;
}

/**
 * The annotations of the page at `path` of `workspace`, or undefined when the caller cannot read a
 * page there.
 */
export async function templateAnnotations(
  session: Session, pages: PagesRegistry, workspace: string, path: string,
): Promise<Record<string, string> | undefined> {
  const page = await session.getNode(workspace, path);
  if (page === undefined || page.type !== PAGE) return undefined;
  const content = (n: NodeRecord) => `${workspace}:${n.path}`;
  const template = (n: NodeRecord): TemplateDefinition | undefined => {
    const id = templateOf(n);
    return id === undefined ? undefined : pages.template(id);
  };
  const out: Record<string, string> = {};
  const pageTemplate = template(page);
  out[page.path] = PAGE + attributes([['content', content(page)], ['dialog', pageTemplate?.dialog]]);

  // Areas and components, level by level; an area's definition comes from the template of its owner.
  let owners = new Map<string, TemplateDefinition | undefined>([[page.path, pageTemplate]]);
  // Areas are written once their components are read (showAddButton depends on their number).
  let areas: [node: NodeRecord, def: AreaDefinition | undefined][] = [];
  const writeAreas = (byParent: ReadonlyMap<string, readonly NodeRecord[]>) => {
    for (const [node, def] of areas) {
      const count = (byParent.get(node.path) ?? []).filter((c) => c.type === COMPONENT).length;
      out[node.path] = AREA + areaAttributes(node, def, content(node), count);
    }
    areas = [];
  };
  for (let level = 0; level < MAX_LEVELS && owners.size > 0; level++) {
    const children = await session.getSubtrees(workspace, [...owners.keys()], 1);
    const byParent = new Map<string, NodeRecord[]>();
    for (const c of children) {
      if (!owners.has(c.parentPath)) continue;
      const list = byParent.get(c.parentPath);
      if (list) list.push(c);
      else byParent.set(c.parentPath, [c]);
    }
    writeAreas(byParent);
    const next = new Map<string, TemplateDefinition | undefined>();
    for (const [parentPath, list] of byParent) {
      const ownerTemplate = owners.get(parentPath);
      for (const node of list) {
        if (node.type === AREA) {
          areas.push([node, ownerTemplate?.areas.get(node.name)]);
          out[node.path] = ''; // keeps the map in document order; written by writeAreas
          next.set(node.path, undefined);
        } else if (node.type === COMPONENT) {
          const t = template(node);
          out[node.path] = COMPONENT + attributes([
            ['content', content(node)], ['dialog', t?.dialog], ['label', t?.title], ['description', t?.description],
            ['activationStatus', activationStatus(node)],
          ]);
          next.set(node.path, t);
        }
      }
    }
    owners = next;
  }
  writeAreas(new Map());
  return out;
}

function areaAttributes(node: NodeRecord, def: AreaDefinition | undefined, content: string, count: number): string {
  return attributes([
    ['name', node.name], ['content', content], ['dialog', def?.dialog],
    ['availableComponents', def?.availableComponents.join(',')], ['type', def?.type ?? 'list'], ['label', def?.title],
    ['inherit', def?.inheritance !== undefined], ['optional', def?.optional ?? false],
    ['createAreaNode', def?.createAreaNode ?? true],
    ['showAddButton', def?.maxComponents === undefined || count < def.maxComponents], ['showNewComponentArea', true],
    ['description', def?.description], ['activationStatus', activationStatus(node)],
  ]);
}
