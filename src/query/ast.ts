// Query vocabulary (no I/O): the backend-neutral model of a Query nodes request. Delivery builds a
// QuerySpec from the URL; the repository types its values and adds the caller's scope, giving a
// StoreQuery that each store compiles to SQL. Values only ever travel as bound parameters.
import type { ReadRule } from './glob.js';

/** How a property value is indexed: compared as text, as a number, as an instant, or as a boolean. */
export type ValueKind = 'string' | 'number' | 'date' | 'boolean';

export type CompareOp = 'eq' | 'ne' | 'gt' | 'lt' | 'gte' | 'lte';

/** What a condition looks at: a property (canonical name) or a node attribute. */
export type Target =
  | { readonly kind: 'property'; readonly name: string }
  | { readonly kind: 'name' }
  | { readonly kind: 'path' }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'type' };

// ---- as parsed from the URL (delivery → repository) ----

export type RawOperator = CompareOp | 'in' | 'not-in' | 'like' | 'ilike' | 'null';

/** One filter parameter: its alternatives (`|`) are ORed; different filters are ANDed. */
export type FilterSpec =
  | { readonly kind: 'filter'; readonly param: string; readonly target: Target; readonly op: RawOperator; readonly values: readonly string[] }
  | { readonly kind: 'ancestor'; readonly param: string; readonly paths: readonly string[] };

export interface OrderSpec {
  readonly target: Target;
  readonly descending: boolean;
}

export interface QuerySpec {
  readonly workspace: string;
  /** Scope: strict descendants of this path (`/` = the whole workspace). */
  readonly rootPath: string;
  /** `nodeTypes` predicate of the endpoint; null = every type. */
  readonly typeFilter: ((type: string) => boolean) | null;
  readonly filters: readonly FilterSpec[];
  /** Full-text terms: whole words, or prefixes when `prefix` (from `word*`). All must match. */
  readonly fullText: readonly FullTextTerm[];
  readonly orderBy: readonly OrderSpec[];
  readonly offset: number;
  readonly limit: number;
  /** Property names ending in `_<default locale>` never match (the default language has no suffix). */
  readonly defaultLocaleSuffix?: string;
  /**
   * Properties the endpoint's definition excludes, with their language variants: to this query they do
   * not exist (filters on them match as on a property no node holds, ordering skips them, `q` does not
   * see their words), so nothing about their values can be inferred. Absent = none.
   */
  readonly hiddenProperties?: ReadonlySet<string>;
}

export interface FullTextTerm {
  readonly word: string;
  readonly prefix: boolean;
}

// ---- typed, as a store compiles it ----

/** A comparison value for one value kind. Dates are epoch milliseconds. */
export type TypedValue =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'date'; readonly value: number }
  | { readonly kind: 'boolean'; readonly value: boolean };

/** A half-open or closed interval over one kind (bare dates become day intervals). */
export interface TypedRange {
  readonly kind: ValueKind;
  readonly lo?: { readonly value: string | number; readonly inclusive: boolean };
  readonly hi?: { readonly value: string | number; readonly inclusive: boolean };
}

/**
 * A condition on the matching nodes. A property condition holds for a node when ANY of its values
 * satisfies ANY alternative; a node without the property matches only `absent`. Negated conditions
 * (`ne`, `not-in`) hold when the property exists and NO value satisfies an alternative.
 */
export type Condition =
  | { readonly kind: 'ranges'; readonly target: Target; readonly negate: boolean; readonly ranges: readonly TypedRange[] }
  | { readonly kind: 'like'; readonly target: Target; readonly caseInsensitive: boolean; readonly patterns: readonly string[]; readonly negate?: boolean }
  | { readonly kind: 'exists'; readonly name: string; readonly exists: boolean }
  /** Strict descendants of any of `paths`; with `negate`, nodes below none of them. */
  | { readonly kind: 'descendantOf'; readonly paths: readonly string[]; readonly negate?: boolean }
  /** The children of `path` (one level below it, not deeper). */
  | { readonly kind: 'childOf'; readonly path: string }
  /** The caller's read scope: the first rule whose pattern matches the path decides (see query/glob). */
  | { readonly kind: 'readable'; readonly rules: readonly ReadRule[] }
  | { readonly kind: 'never' };

export interface StoreOrder {
  readonly target: Target;
  readonly descending: boolean;
}

export interface StoreQuery {
  readonly workspace: string;
  readonly rootPath: string;
  /** Exact primary types allowed; null = all. */
  readonly types: readonly string[] | null;
  readonly conditions: readonly Condition[];
  readonly fullText: readonly FullTextTerm[];
  /** Properties whose words do not count for `fullText` (hidden by the endpoint; see hidden-full-text.ts). */
  readonly fullTextHidden?: readonly string[] | undefined;
  readonly orderBy: readonly StoreOrder[];
  readonly offset: number;
  readonly limit: number;
}
