// Delivery layer: turns a validated EndpointDefinition into what requests need, once per load
// (type predicates expanded, property rules compiled), so the hot path only looks things up.
import { compileTypePredicate, type NodeTypeRegistry, type TypePredicate } from '../repository/node-types.js';
import type { EndpointDefinition } from './endpoint-definition.js';
import { compileVisibility, definitionExclusions, type Visibility } from './property-visibility.js';
import { compileReferenceRules, type ReferenceRule } from './resolvers/reference-rules.js';

export interface CompiledEndpoint {
  readonly definition: EndpointDefinition;
  /** `nodeTypes`: the node read, the children listed by Get children, the nodes queried. */
  readonly nodeType: TypePredicate;
  /** `childNodeTypes`: embedded children. */
  readonly childType: TypePredicate;
  /** Property rules without request lists (the common case). */
  readonly visibility: Visibility;
  /** What the definition excludes, which no request may see or query (canonical names); null = nothing. */
  readonly hidden: ReadonlySet<string> | null;
  /** Reference definitions compiled; null when the endpoint has none (no reference work at all). */
  readonly references: readonly ReferenceRule[] | null;
}

const cache = new WeakMap<EndpointDefinition, CompiledEndpoint>();

export function compileEndpoint(definition: EndpointDefinition, types: NodeTypeRegistry): CompiledEndpoint {
  let compiled = cache.get(definition);
  if (compiled === undefined) {
    compiled = Object.freeze({
      definition,
      nodeType: compileTypePredicate(types, definition.nodeTypes, definition.strict),
      childType: compileTypePredicate(types, definition.childNodeTypes, definition.strict),
      visibility: compileVisibility(definition),
      hidden: definitionExclusions(definition),
      references: definition.references.length === 0 ? null : compileReferenceRules(definition.references, types),
    });
    cache.set(definition, compiled);
  }
  return compiled;
}
