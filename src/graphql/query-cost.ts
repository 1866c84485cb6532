// GraphQL layer: what an operation asks for, measured on its document before anything runs, so that
// query-limits.ts can refuse a query too deep, too wide or too repetitive to answer cheaply.
//
// Fragments are expanded: a fragment spread N times costs N times. A fragment's cost does not depend
// on where it is spread, so each is measured once (memo), which keeps a document whose fragments
// double at every step (A spreads B twice, B spreads C twice, ...) linear to measure although its
// cost is exponential. A fragment met again while it is being measured (a cycle, which graphql's
// NoFragmentCycles reports) costs nothing here, so measuring never loops.
import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

export interface QueryCost {
  /** Fields on the longest path: `{ books { title } }` is 2; fragments add no level of their own. */
  readonly depth: number;
  /** Fields selected, each alias, repetition and fragment spread counted (see the introspection note at operationCost). */
  readonly complexity: number;
  /** Aliased fields, fragments expanded. */
  readonly aliases: number;
  /** Fields at the operation's top level, fragments expanded. */
  readonly rootFields: number;
}

export type FragmentLookup = (name: string) => FragmentDefinitionNode | null | undefined;

/** The cost of a selection set, whatever encloses it. */
export interface SetCost {
  readonly depth: number;
  /** Fields of this set itself (through fragments), not below them. */
  readonly fields: number;
  readonly complexity: number;
  readonly aliases: number;
  /** The largest complexity below a `__schema` field of this set itself. */
  readonly schemaSubtree: number;
}

const NOTHING: SetCost = { depth: 0, fields: 0, complexity: 0, aliases: 0, schemaSubtree: 0 };

/** Fragment name → its cost, or null while it is being measured. Shared by the operations of one document. */
export type FragmentCosts = Map<string, SetCost | null>;

/**
 * The cost of one operation. The fields below one `__schema` field (the largest, when there are
 * several) are left out of `complexity`: a client's introspection query (GraphiQL's, codegen's)
 * selects about 220 fields, more than a content query needs, and what it returns is bounded by the
 * schema, not by the content. They still count for depth, and a second `__schema` or any `__type`
 * counts in full, so repeating introspection is not free.
 */
export function operationCost(operation: OperationDefinitionNode, fragment: FragmentLookup, memo: FragmentCosts = new Map()): QueryCost {
  const ofSpread = (name: string): SetCost => {
    if (memo.has(name)) return memo.get(name) ?? NOTHING;
    const definition = fragment(name);
    if (definition === null || definition === undefined) return NOTHING; // KnownFragmentNames reports it
    memo.set(name, null);
    const cost = ofSet(definition.selectionSet);
    memo.set(name, cost);
    return cost;
  };

  const ofSet = (set: SelectionSetNode): SetCost => {
    let depth = 0, fields = 0, complexity = 0, aliases = 0, schemaSubtree = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet === undefined ? NOTHING : ofSet(selection.selectionSet);
        depth = Math.max(depth, 1 + below.depth);
        fields += 1;
        complexity += 1 + below.complexity;
        aliases += (selection.alias === undefined ? 0 : 1) + below.aliases;
        if (selection.name.value === '__schema') schemaSubtree = Math.max(schemaSubtree, below.complexity);
        continue;
      }
      const inner = selection.kind === Kind.INLINE_FRAGMENT ? ofSet(selection.selectionSet) : ofSpread(selection.name.value);
      depth = Math.max(depth, inner.depth);
      fields += inner.fields;
      complexity += inner.complexity;
      aliases += inner.aliases;
      schemaSubtree = Math.max(schemaSubtree, inner.schemaSubtree);
    }
    return { depth, fields, complexity, aliases, schemaSubtree };
  };

  const cost = ofSet(operation.selectionSet);
  return {
    depth: cost.depth,
    // Sums past 2^1024 are Infinity; Infinity minus Infinity would be NaN, which passes every comparison.
    complexity: Number.isFinite(cost.complexity) ? cost.complexity - cost.schemaSubtree : cost.complexity,
    aliases: cost.aliases,
    rootFields: cost.fields,
  };
}
