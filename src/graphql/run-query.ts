// GraphQL layer: one GraphQL request from its parameters to the answer's status and JSON text. The
// document is parsed with a token limit, validated (GraphQL's rules, the server's limits of depth,
// cost, aliases and root fields, introspection only where allowed) before anything is read, and kept
// validated by its text for the next request; then executed against the caller's ReadContext.
// Errors follow GraphQL over HTTP: a request the server cannot run is a 400 with `errors` only; an
// error while running is a 200 with `data` and `errors`.
import {
  execute, GraphQLError, Kind, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate,
  type DocumentNode, type ExecutionResult, type GraphQLFormattedError, type OperationDefinitionNode, type ValidationRule,
} from 'graphql';
import { ByteLru } from '../cache/byte-lru.js';
import { isPetalError } from '../errors.js';
import type { BuiltSchema } from './build-schema.js';
import { limitRules, type QueryLimits } from './query-limits.js';
import type { ReadContext } from './read-context.js';

/** The parameters of a GraphQL request, from a GET's query string or a POST's body. */
export interface GraphqlRequest {
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
  readonly operationName?: string | undefined;
}

export interface GraphqlAnswer {
  readonly status: number;
  readonly body: string;
  /** Unexpected errors of resolvers (a store that cannot be reached…): such an answer must not be cached. */
  readonly failures?: readonly unknown[];
}

export interface QueryRunnerOptions {
  readonly built: BuiltSchema;
  readonly limits: QueryLimits;
  readonly introspection: boolean;
}

/** Validated documents kept by their text: most front ends send the same few queries again and again. */
const DOCUMENTS_BYTES = 8 * 1024 * 1024;

/** A 400 with GraphQL errors: the request was not run. */
export function requestError(message: string, code: string): GraphqlAnswer {
  return { status: 400, body: JSON.stringify({ errors: [{ message, extensions: { code } }] }) };
}

/** Called with a resolver's unexpected error (the answer says only that something failed). */
export type InternalErrorLog = (err: unknown) => void;

function formatted(errors: readonly GraphQLError[], log?: InternalErrorLog): GraphQLFormattedError[] {
  return errors.map((e) => {
    const f = e.toJSON();
    const cause = e.originalError;
    if (cause === undefined || cause instanceof GraphQLError || f.extensions?.code !== undefined) return f;
    // A refusal of the caller's input below GraphQL (a filter value that is not of the property's
    // kind, say) is the caller's to read, with Petal's error code.
    if (isPetalError(cause) && cause.status < 500) return { ...f, message: cause.message, extensions: { code: cause.code } };
    // Anything else says no more than that: its message may name internals.
    log?.(cause);
    return { ...f, message: 'Internal error while reading this field', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  });
}

export class QueryRunner {
  readonly #o: QueryRunnerOptions;
  readonly #rules: readonly ValidationRule[];
  readonly #documents: ByteLru<string, DocumentNode>;

  constructor(o: QueryRunnerOptions) {
    this.#o = o;
    this.#rules = [...specifiedRules, ...limitRules(o.limits), ...(o.introspection ? [] : [NoSchemaIntrospectionCustomRule])];
    this.#documents = new ByteLru<string, DocumentNode>(DOCUMENTS_BYTES);
  }

  get schema() {
    return this.#o.built.schema;
  }

  /** The document, parsed and validated (from the memo when this text was seen), or the 400 to send. */
  document(query: string): DocumentNode | GraphqlAnswer {
    const known = this.#documents.get(query);
    if (known !== undefined) return known;
    let doc: DocumentNode;
    try {
      doc = parse(query, { maxTokens: this.#o.limits.maxTokens, noLocation: false });
    } catch (err) {
      if (err instanceof GraphQLError) return { status: 400, body: JSON.stringify({ errors: formatted([withCode(err, 'GRAPHQL_PARSE_FAILED')]) }) };
      throw err;
    }
    const errors = validate(this.#o.built.schema, doc, this.#rules);
    if (errors.length > 0) return { status: 400, body: JSON.stringify({ errors: formatted(errors.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED'))) }) };
    // Counted as the text's length twice over: the parsed tree is a few times the text, the text is the key.
    this.#documents.set(query, doc, query.length * 8);
    return doc;
  }

  /** The operation a GET may run: a query (GraphQL over HTTP forbids anything else over GET). */
  static operationOf(doc: DocumentNode, name: string | undefined): OperationDefinitionNode | undefined {
    const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    return name === undefined ? (ops.length === 1 ? ops[0] : undefined) : ops.find((o) => o.name?.value === name);
  }

  async run(doc: DocumentNode, request: GraphqlRequest, ctx: ReadContext, log?: InternalErrorLog): Promise<GraphqlAnswer> {
    const result: ExecutionResult = await execute({
      schema: this.#o.built.schema, document: doc, contextValue: ctx,
      variableValues: request.variables ?? null, operationName: request.operationName ?? null,
    });
    const failures: unknown[] = [];
    const note: InternalErrorLog = (err) => {
      failures.push(err);
      log?.(err);
    };
    // Errors of the request itself (a missing variable, an unknown operation) leave no data at all.
    if (!('data' in result) || result.data === undefined) {
      return { status: 400, body: JSON.stringify({ errors: formatted(result.errors ?? [], note) }), failures };
    }
    const body = result.errors !== undefined && result.errors.length > 0
      ? { data: result.data, errors: formatted(result.errors, note) } : { data: result.data };
    return { status: 200, body: JSON.stringify(body), failures };
  }
}

function withCode(e: GraphQLError, code: string): GraphQLError {
  if (e.extensions.code !== undefined) return e;
  return new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, path: e.path, originalError: e.originalError, extensions: { ...e.extensions, code } });
}
