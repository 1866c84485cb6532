// GraphQL layer: the limits a query must keep before it runs (Magnolia's maxQueryDepth 15 and
// maxQueryComplexity 200, plus aliases, top-level fields and literal list sizes), as graphql
// validation rules. Unlike Magnolia, the error names the limit: a client can only fix what it is told.
import { GraphQLError, Kind, type ASTNode, type OperationDefinitionNode, type ValidationContext, type ValidationRule } from 'graphql';
import { operationCost, type FragmentCosts } from './query-cost.js';

export interface QueryLimits {
  /** Fields nested in fields, fragments expanded (introspection included). */
  maxDepth: number;
  /** Fields selected, fragments expanded, each alias and repetition counted. */
  maxComplexity: number;
  maxAliases: number;
  /** Fields at an operation's top level. */
  maxRootFields: number;
  /** For graphql's `parse(text, { maxTokens })`: a document is refused while it is read. */
  maxTokens: number;
  /** The largest `limit:` argument; a literal is refused here, a variable's value at execution. */
  maxListLimit: number;
}

export const DEFAULT_QUERY_LIMITS: QueryLimits = Object.freeze({
  maxDepth: 15,
  maxComplexity: 200,
  maxAliases: 30,
  maxRootFields: 20,
  maxTokens: 5000,
  maxListLimit: 100,
});

export type QueryLimitCode = 'QUERY_TOO_DEEP' | 'QUERY_TOO_COMPLEX' | 'TOO_MANY_ALIASES' | 'TOO_MANY_ROOT_FIELDS' | 'LIMIT_TOO_LARGE';

/** The argument whose literal value maxListLimit bounds, on any field. */
const LIMIT_ARGUMENT = 'limit';

/**
 * Validation rules (to run with graphql's specifiedRules) enforcing depth, complexity, aliases and
 * top-level fields per operation, and the largest literal `limit:`. Each error is a GraphQLError with
 * `extensions.code` (QueryLimitCode). Throws RangeError when a limit is not a positive integer.
 */
export function limitRules(limits: QueryLimits): ValidationRule[] {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`Query limit ${name} must be a positive integer, got ${String(value)}`);
  }
  return [operationLimitsRule(limits), listLimitRule(limits.maxListLimit)];
}

function refuse(context: ValidationContext, code: QueryLimitCode, message: string, node: ASTNode): void {
  context.reportError(new GraphQLError(message, { nodes: node, extensions: { code } }));
}

function count(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : `more than ${Number.MAX_SAFE_INTEGER}`;
}

function operationLimitsRule(limits: QueryLimits): ValidationRule {
  return (context) => {
    const memo: FragmentCosts = new Map();
    return {
      OperationDefinition(operation) {
        const cost = operationCost(operation, (name) => context.getFragment(name), memo);
        const of = operationLabel(operation);
        if (cost.depth > limits.maxDepth) {
          refuse(context, 'QUERY_TOO_DEEP', `${of}: depth ${count(cost.depth)} is over the limit of ${limits.maxDepth} (fields nested in fields, fragments expanded)`, operation);
        }
        if (cost.complexity > limits.maxComplexity) {
          refuse(context, 'QUERY_TOO_COMPLEX', `${of}: ${count(cost.complexity)} fields selected, over the limit of ${limits.maxComplexity} (fragments expanded, each alias and repetition counted)`, operation);
        }
        if (cost.aliases > limits.maxAliases) {
          refuse(context, 'TOO_MANY_ALIASES', `${of}: ${count(cost.aliases)} aliases, over the limit of ${limits.maxAliases} (fragments expanded)`, operation);
        }
        if (cost.rootFields > limits.maxRootFields) {
          refuse(context, 'TOO_MANY_ROOT_FIELDS', `${of}: ${count(cost.rootFields)} top-level fields, over the limit of ${limits.maxRootFields}`, operation);
        }
        return false; // measured from the node; nothing below is this rule's
      },
    };
  };
}

function operationLabel(operation: OperationDefinitionNode): string {
  return operation.name === undefined ? 'The query' : `The ${operation.operation} ${operation.name.value}`;
}

/**
 * `limit: 5000` written in the document, and `$n: Int = 5000` as the default of a variable passed to
 * a `limit:` (a default is written in the document too). A value sent in `variables` is checked at
 * execution.
 */
function listLimitRule(maxListLimit: number): ValidationRule {
  return (context) => {
    const limitVariables = new Set<string>();
    const tooLarge = (text: string): boolean => Number(text) > maxListLimit;
    return {
      Field(field) {
        for (const argument of field.arguments ?? []) {
          if (argument.name.value !== LIMIT_ARGUMENT) continue;
          const value = argument.value;
          if (value.kind === Kind.VARIABLE) limitVariables.add(value.name.value);
          else if (value.kind === Kind.INT && tooLarge(value.value)) {
            refuse(context, 'LIMIT_TOO_LARGE', `${field.name.value}(limit: ${value.value}) is over the largest limit of ${maxListLimit}`, argument);
          }
        }
      },
      Document: {
        leave(document) {
          for (const definition of document.definitions) {
            if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
            for (const variable of definition.variableDefinitions ?? []) {
              const fallback = variable.defaultValue;
              if (fallback?.kind === Kind.INT && limitVariables.has(variable.variable.name.value) && tooLarge(fallback.value)) {
                refuse(context, 'LIMIT_TOO_LARGE', `$${variable.variable.name.value} = ${fallback.value}, passed to limit:, is over the largest limit of ${maxListLimit}`, variable);
              }
            }
          }
        },
      },
    };
  };
}
