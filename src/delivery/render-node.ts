// Delivery layer: renders nodes as JSON v2 text in one pass (the only code that decides key order):
// `@name`, `@path`, `@id`, `@nodeType`, properties in stored order, embedded children, `@nodes` last.
import type { TypePredicate } from '../repository/node-types.js';
import type { NodeRecord } from '../store/rows.js';
import type { PropertyType, ScalarValue } from '../repository/property-type.js';
import { encodeValue } from './render-value.js';
import { baseNameOf, type LocaleChoice } from './resolve-locale.js';
import type { Visibility } from './property-visibility.js';

export interface RenderOptions {
  /** Levels of children embedded below each result node. */
  readonly depth: number;
  /** `childNodeTypes`: embedded children that fail it are left out with their subtree. */
  readonly childType: TypePredicate;
  readonly visible: Visibility;
  readonly locale: LocaleChoice;
  /** Output form of a canonical name (`cms:` or `mgnl:` prefix). */
  readonly outName: (name: string) => string;
  /** Reference resolution; null when the endpoint has no references. */
  readonly refs?: ReferenceRenderer | null;
  /** `@link` of the rendered node itself (before `@nodes`), for resolved references with `generateLink`. */
  readonly link?: string;
}

/** Renders a property that is a reference, or answers undefined (then it renders as stored). */
export interface ReferenceRenderer {
  render(node: NodeRecord, name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[]): string | undefined;
}

/** A node's children, by parent path, in natural order (rows come ordered by depth, parent, position). */
export type ChildIndex = Map<string, NodeRecord[]>;

export function indexChildren(rows: readonly NodeRecord[]): ChildIndex {
  const index: ChildIndex = new Map();
  for (const r of rows) {
    const list = index.get(r.parentPath);
    if (list) list.push(r);
    else index.set(r.parentPath, [r]);
  }
  for (const list of index.values()) {
    for (let i = 1; i < list.length; i++) {
      if (list[i - 1]!.position > list[i]!.position) { list.sort((a, b) => a.position - b.position); break; }
    }
  }
  return index;
}

export interface KeyedNode {
  readonly key: string;
  readonly node: NodeRecord;
}

/**
 * Applies the language rules to a list of sibling nodes: with a non-default locale `l`, a child
 * `x_l` takes the place (and key) of `x`; variants of other locales are hidden; `lang=all` keeps all.
 */
export function localizeSiblings(nodes: readonly NodeRecord[], locale: LocaleChoice): KeyedNode[] {
  const out: KeyedNode[] = [];
  const suffixes = locale.variantSuffixes;
  if (locale.all || suffixes.length === 0) {
    for (const n of nodes) out.push({ key: n.name, node: n });
    return out;
  }
  if (locale.isDefault) {
    for (const n of nodes) if (baseNameOf(n.name, suffixes) === undefined) out.push({ key: n.name, node: n });
    return out;
  }
  const own = `_${locale.locale}`;
  const variants = new Map<string, NodeRecord>();
  const bases = new Set<string>();
  for (const n of nodes) {
    const base = baseNameOf(n.name, suffixes);
    if (base === undefined) bases.add(n.name);
    else if (n.name === base + own) variants.set(base, n);
  }
  for (const n of nodes) {
    const base = baseNameOf(n.name, suffixes);
    if (base === undefined) out.push({ key: n.name, node: variants.get(n.name) ?? n });
    else if (n.name === base + own && !bases.has(base)) out.push({ key: base, node: n });
  }
  return out;
}

/** Renders `node` (already chosen and permitted) with its children down to `options.depth`. */
export function renderNode(node: NodeRecord, children: ChildIndex, options: RenderOptions): string {
  return writeNode(node, children, options, 0);
}

function writeNode(node: NodeRecord, children: ChildIndex, o: RenderOptions, level: number): string {
  let out = '{"@name":' + JSON.stringify(o.outName(node.name))
    + ',"@path":' + JSON.stringify(node.path)
    + ',"@id":' + JSON.stringify(node.id)
    + ',"@nodeType":' + JSON.stringify(o.outName(node.type));
  out += writeProperties(node, o);

  let names = '';
  if (level < o.depth) {
    const kids = children.get(node.path);
    if (kids !== undefined) {
      const allowed = o.childType === null ? kids : kids.filter((k) => o.childType!(k.type));
      for (const { key, node: child } of localizeSiblings(allowed, o.locale)) {
        const k = JSON.stringify(o.outName(key));
        out += ',' + k + ':' + writeNode(child, children, o, level + 1);
        names += names === '' ? k : ',' + k;
      }
    }
  }
  if (level === 0 && o.link !== undefined) out += ',"@link":' + JSON.stringify(o.link);
  return out + ',"@nodes":[' + names + ']}';
}

function writeProperties(node: NodeRecord, o: RenderOptions): string {
  const props = node.properties;
  const { locale, visible } = o;
  const suffixes = locale.variantSuffixes;
  let out = '';
  if (locale.all || suffixes.length === 0) {
    for (const [name, type, value] of props) {
      const base = suffixes.length === 0 ? undefined : baseNameOf(name, suffixes);
      if (!visible(base ?? name)) continue;
      const text = (o.refs ? o.refs.render(node, base ?? name, type, value) : undefined) ?? encodeValue(type, value);
      if (text !== undefined) out += ',' + JSON.stringify(o.outName(name)) + ':' + text;
    }
    return out;
  }
  const own = locale.isDefault ? '' : `_${locale.locale}`;
  let names: Set<string> | undefined;
  if (own !== '') names = new Set(props.map((p) => p[0]));
  for (const p of props) {
    const name = p[0];
    const base = baseNameOf(name, suffixes);
    let key = name;
    let chosen = p;
    if (base !== undefined) {
      // A variant: shown only as the stand-in for a missing base property of the requested locale.
      if (own === '' || name !== base + own || names!.has(base)) continue;
      key = base;
    } else if (own !== '' && names!.has(name + own)) {
      chosen = props.find((q) => q[0] === name + own)!;
    }
    if (!visible(key)) continue;
    const text = (o.refs ? o.refs.render(node, key, chosen[1], chosen[2]) : undefined) ?? encodeValue(chosen[1], chosen[2]);
    if (text !== undefined) out += ',' + JSON.stringify(o.outName(key)) + ':' + text;
  }
  return out;
}
