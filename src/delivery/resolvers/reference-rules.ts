// Delivery layer: the endpoint's reference definitions compiled once: which property of which node
// type is a reference, and which resolver renders it. `propertyName` is a name or a regular expression.
import { compileTypePredicate, type NodeTypeRegistry, type TypePredicate } from '../../repository/node-types.js';
import { toCanonicalName } from '../../model/names.js';
import type { ReferenceDefinition, ResolverDefinition } from '../endpoint-definition.js';

export interface ReferenceRule {
  readonly index: number;
  readonly definition: ReferenceDefinition;
  readonly resolver: ResolverDefinition;
  readonly nodeType: TypePredicate;
  matches(propertyName: string): boolean;
}

const NAME = /^[\w:.-]+$/;

export function compileReferenceRules(defs: readonly ReferenceDefinition[], types: NodeTypeRegistry): ReferenceRule[] {
  return defs.map((definition, index) => {
    const raw = definition.propertyName;
    let matches: (name: string) => boolean;
    if (NAME.test(raw)) {
      const canonical = toCanonicalName(raw);
      matches = (name) => name === canonical;
    } else {
      let re: RegExp;
      try {
        re = new RegExp(`^(?:${raw})$`);
      } catch {
        const literal = toCanonicalName(raw);
        re = { test: (s: string) => s === literal } as RegExp;
      }
      matches = (name) => re.test(name);
    }
    return {
      index, definition, resolver: definition.resolver, matches,
      nodeType: definition.nodeType === undefined ? null : compileTypePredicate(types, [definition.nodeType], false),
    };
  });
}

/** The first rule for a property of a node of `type`, if any. */
export function ruleFor(rules: readonly ReferenceRule[], type: string, propertyName: string): ReferenceRule | undefined {
  for (const r of rules) {
    if (r.matches(propertyName) && (r.nodeType === null || r.nodeType(type))) return r;
  }
  return undefined;
}

/** `jcr:<uuid>` or `<uuid>` → the uuid; anything else → undefined. */
export function uuidOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.startsWith('jcr:') ? value.slice(4) : value;
  return /^[0-9a-fA-F-]{8,64}$/.test(v) ? v : undefined;
}
