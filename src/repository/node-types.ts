// Repository model: the node-type hierarchy, used for `nodeTypes`/`childNodeTypes` with `strict: false`.
import { toCanonicalName } from '../model/names.js';

/** Built-in primary types and their direct super types (canonical names). */
const BUILT_IN: Readonly<Record<string, readonly string[]>> = {
  'nt:base': [],
  'nt:hierarchyNode': ['nt:base'],
  'nt:folder': ['nt:hierarchyNode'],
  'nt:file': ['nt:hierarchyNode'],
  'nt:resource': ['nt:base'],
  'nt:unstructured': ['nt:base'],
  'rep:root': ['nt:unstructured'],
  'cms:content': ['nt:hierarchyNode'],
  'cms:contentNode': ['nt:hierarchyNode'],
  'cms:page': ['cms:content'],
  'cms:category': ['cms:content'],
  'cms:tag': ['cms:content'],
  'cms:marketing-tag': ['cms:content'],
  'cms:asset': ['cms:content'],
  'cms:composition': ['cms:content'],
  'cms:collection': ['cms:content'],
  'cms:user': ['cms:content'],
  'cms:group': ['cms:content'],
  'cms:role': ['cms:content'],
  'cms:area': ['cms:contentNode'],
  'cms:component': ['cms:contentNode'],
  'cms:block': ['cms:contentNode'],
  'cms:resource': ['nt:resource'],
  'cms:folder': ['nt:folder'],
  'cms:componentVariants': ['nt:hierarchyNode'],
  'cms:reserve': ['nt:hierarchyNode'],
  'cms:metaData': ['nt:hierarchyNode'],
};

/**
 * The type hierarchy: answers "is `type` the same as or a sub type of `superType`". Extra types
 * (from config or seen in content) can be declared; an unknown type is a direct sub type of `nt:base`.
 */
export class NodeTypeRegistry {
  readonly #supers = new Map<string, readonly string[]>();
  readonly #closure = new Map<string, ReadonlySet<string>>();

  constructor(extra: Readonly<Record<string, readonly string[]>> = {}) {
    for (const [t, s] of Object.entries(BUILT_IN)) this.#supers.set(t, s);
    for (const [t, s] of Object.entries(extra)) this.#supers.set(toCanonicalName(t), s.map(toCanonicalName));
  }

  /** All types `type` is, itself included (cached). */
  ancestorsOf(type: string): ReadonlySet<string> {
    let set = this.#closure.get(type);
    if (set) return set;
    const out = new Set<string>([type]);
    const stack = [...(this.#supers.get(type) ?? (type === 'nt:base' ? [] : ['nt:base']))];
    while (stack.length > 0) {
      const t = stack.pop()!;
      if (out.has(t)) continue;
      out.add(t);
      stack.push(...(this.#supers.get(t) ?? (t === 'nt:base' ? [] : ['nt:base'])));
    }
    set = out;
    this.#closure.set(type, set);
    return set;
  }

  isA(type: string, superType: string): boolean {
    return type === superType || this.ancestorsOf(type).has(superType);
  }

  /** Every known type that is `superType` or one of its sub types (for compiling filters to SQL). */
  subTypesOf(superType: string): string[] {
    const out: string[] = [];
    for (const t of this.#supers.keys()) if (this.isA(t, superType)) out.push(t);
    if (!out.includes(superType)) out.push(superType);
    return out;
  }
}

/**
 * A compiled type predicate for an endpoint: `null` means "no restriction". With `strict` only the exact
 * types match; otherwise sub types match too. Mixins never count (as in the original CMS).
 */
export type TypePredicate = ((type: string) => boolean) | null;

export function compileTypePredicate(
  registry: NodeTypeRegistry,
  types: readonly string[] | undefined,
  strict: boolean,
): TypePredicate {
  if (!types || types.length === 0) return null;
  const wanted = new Set(types.map(toCanonicalName));
  if (strict) return (type) => wanted.has(type);
  const cache = new Map<string, boolean>();
  return (type) => {
    let hit = cache.get(type);
    if (hit === undefined) {
      hit = false;
      for (const t of registry.ancestorsOf(type)) if (wanted.has(t)) { hit = true; break; }
      cache.set(type, hit);
    }
    return hit;
  };
}
