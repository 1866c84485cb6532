// GraphQL query limits: depth, complexity, aliases, top-level fields and literal `limit:`, refused by
// validation before anything runs, fragments expanded and cycles harmless; introspection fits.
import { buildSchema, getIntrospectionQuery, parse, specifiedRules, validate, type GraphQLError, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_LIMITS, limitRules, type QueryLimits } from '../../src/graphql/query-limits.js';
import { operationCost } from '../../src/graphql/query-cost.js';

const schema = buildSchema(`
  type Query { books(limit: Int, offset: Int): [Book] book(id: ID): Book authors(limit: Int): [Author] }
  type Book { title: String publisher: String authors(limit: Int): [Author] related(limit: Int): [Book] frontcover: Asset }
  type Author { name: String books(limit: Int): [Book] }
  type Asset { name: String link: String }
`);

function check(query: string, limits: QueryLimits = DEFAULT_QUERY_LIMITS, withSpecified = true): readonly GraphQLError[] {
  return validate(schema, parse(query), withSpecified ? [...specifiedRules, ...limitRules(limits)] : limitRules(limits));
}

function codes(query: string, limits?: QueryLimits): unknown[] {
  return check(query, limits).map((e) => e.extensions.code ?? e.message);
}

function cost(query: string) {
  const document = parse(query);
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [[d.name.value, d] as const] : [])));
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  return operationCost(operation, (name) => fragments.get(name));
}

/** `{ books { related { related ... { title } } } }` with `depth` fields on the longest path. */
function nested(depth: number): string {
  return `{ books ${'{ related '.repeat(depth - 2)}{ title }${' }'.repeat(depth - 2)} }`;
}

/** `{ books { t1: title ... } }`: `n` aliased fields plus `books`. */
function aliased(n: number): string {
  return `{ books { ${Array.from({ length: n }, (_, i) => `t${i}: title`).join(' ')} } }`;
}

describe('DEFAULT_QUERY_LIMITS', () => {
  it("are Magnolia's depth 15 and complexity 200, with 30 aliases, 20 top-level fields, 5000 tokens and limit 100", () => {
    expect(DEFAULT_QUERY_LIMITS).toEqual({ maxDepth: 15, maxComplexity: 200, maxAliases: 30, maxRootFields: 20, maxTokens: 5000, maxListLimit: 100 });
  });

  it('refuse a limit that is not a positive integer', () => {
    expect(() => limitRules({ ...DEFAULT_QUERY_LIMITS, maxDepth: 0 })).toThrow(/maxDepth must be a positive integer, got 0/);
    expect(() => limitRules({ ...DEFAULT_QUERY_LIMITS, maxComplexity: Number.NaN })).toThrow(RangeError);
  });
});

describe('depth', () => {
  it('lets a query of depth 15 through and refuses 16, naming both numbers', () => {
    expect(cost(nested(15)).depth).toBe(15);
    expect(check(nested(15))).toEqual([]);
    const errors = check(nested(16));
    expect(errors.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_DEEP']);
    expect(errors[0]!.message).toBe('The query: depth 16 is over the limit of 15 (fields nested in fields, fragments expanded)');
    expect(errors[0]!.locations).toEqual([{ line: 1, column: 1 }]);
  });

  it('expands fragments and inline fragments, which add no level of their own', () => {
    const query = 'query Deep { books { ...R } } fragment R on Book { related { ... on Book { related { ...T } } } } fragment T on Book { title }';
    expect(cost(query).depth).toBe(4);
    expect(codes(query, { ...DEFAULT_QUERY_LIMITS, maxDepth: 3 })).toEqual(['QUERY_TOO_DEEP']);
    expect(check(query, { ...DEFAULT_QUERY_LIMITS, maxDepth: 3 })[0]!.message).toMatch(/^The query Deep: depth 4 is over the limit of 3/);
    expect(codes(query, { ...DEFAULT_QUERY_LIMITS, maxDepth: 4 })).toEqual([]);
  });

  it('counts introspection fields too', () => {
    const query = `{ __schema { types { fields { type ${'{ ofType '.repeat(11)}{ name }${' }'.repeat(11)} } } } }`;
    expect(cost(query).depth).toBe(16);
    expect(codes(query)).toEqual(['QUERY_TOO_DEEP']);
  });
});

describe('complexity', () => {
  it('counts every field: 200 pass, 201 are refused', () => {
    // books + 199 aliased titles = 200 fields; the alias limit is raised to see complexity alone.
    const limits = { ...DEFAULT_QUERY_LIMITS, maxAliases: 1000 };
    expect(cost(aliased(199)).complexity).toBe(200);
    expect(codes(aliased(199), limits)).toEqual([]);
    const errors = check(aliased(200), limits);
    expect(errors.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(errors[0]!.message).toBe('The query: 201 fields selected, over the limit of 200 (fragments expanded, each alias and repetition counted)');
  });

  it('counts a repeated field each time, and a fragment each time it is spread (5 fields spread 5 times = 25)', () => {
    expect(cost('{ books { title title title } }').complexity).toBe(4);
    const spread5 = '{ books { ...F ...F ...F ...F ...F } } fragment F on Book { title publisher frontcover { name link } }';
    expect(cost(spread5).complexity).toBe(1 + 25);
    expect(codes(spread5, { ...DEFAULT_QUERY_LIMITS, maxComplexity: 25 })).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it('measures fragments that double at every step at once, and refuses them', () => {
    const steps = 60;
    const fragments = Array.from({ length: steps }, (_, i) => `fragment F${i} on Book { ${i === steps - 1 ? 'title' : `...F${i + 1} ...F${i + 1}`} }`);
    const query = `{ books { ...F0 } } ${fragments.join(' ')}`;
    const started = Date.now();
    const errors = check(query);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(errors.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(errors[0]!.message).toMatch(/^The query: more than 9007199254740991 fields selected/);
    // 2^59 + 1 fields (beyond the integers a double holds exactly, so not compared exactly)
    expect(cost(query).complexity).toBeGreaterThan(2 ** 58);
  });

  it("lets GraphiQL's introspection query through the defaults, with every option graphql offers", () => {
    for (const query of [getIntrospectionQuery(), getIntrospectionQuery({
      descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true,
    })]) {
      expect(check(query)).toEqual([]);
      expect(cost(query).depth).toBe(15);
      expect(() => parse(query, { maxTokens: DEFAULT_QUERY_LIMITS.maxTokens })).not.toThrow();
    }
  });

  it('counts a second __schema in full, so introspection cannot be repeated for free', () => {
    const once = getIntrospectionQuery();
    const operation = once.slice(0, once.indexOf('fragment FullType'));
    const schemaField = operation.slice(operation.indexOf('__schema'), operation.lastIndexOf('}'));
    const twice = `query { a: ${schemaField} b: ${schemaField} } ${once.slice(operation.length)}`;
    expect(cost(once).complexity).toBe(1); // __schema itself; the ~220 fields below it are the free introspection
    expect(cost(twice).complexity).toBeGreaterThan(200);
    expect(codes(twice)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(codes('{ __type(name: "Book") { fields { type { ofType { ofType { name } } } } } }', { ...DEFAULT_QUERY_LIMITS, maxComplexity: 5 })).toEqual(['QUERY_TOO_COMPLEX']);
  });
});

describe('fragment cycles', () => {
  const cycles = [
    '{ books { ...A } } fragment A on Book { related { ...B } } fragment B on Book { related { ...A } }',
    '{ books { ...A } } fragment A on Book { title ...A }',
  ];

  it('do not hang the limit rules, alone or beside NoFragmentCycles, which reports them', () => {
    for (const query of cycles) {
      expect(check(query, DEFAULT_QUERY_LIMITS, false)).toEqual([]);
      expect(check(query).map((e) => e.message).join('\n')).toMatch(/Cannot spread fragment "A" within itself/);
    }
  });

  it('and a fragment used in two operations is measured for each', () => {
    const query = 'query A { books { ...F } } query B { book { ...F related { ...F } } } fragment F on Book { title publisher }';
    expect(codes(query, { ...DEFAULT_QUERY_LIMITS, maxComplexity: 5 })).toEqual(['QUERY_TOO_COMPLEX']);
    expect(check(query, { ...DEFAULT_QUERY_LIMITS, maxComplexity: 5 })[0]!.message).toMatch(/^The query B: 6 fields/);
  });
});

describe('aliases', () => {
  it('lets 30 through and refuses 31, counting aliases in fragments each time they are spread', () => {
    expect(codes(aliased(30))).toEqual([]);
    const errors = check(aliased(31));
    expect(errors.map((e) => e.extensions.code)).toEqual(['TOO_MANY_ALIASES']);
    expect(errors[0]!.message).toBe('The query: 31 aliases, over the limit of 30 (fragments expanded)');
    const spread = `{ books { ...F ...F } } fragment F on Book { ${Array.from({ length: 16 }, (_, i) => `t${i}: title`).join(' ')} }`;
    expect(codes(spread)).toEqual(['TOO_MANY_ALIASES']);
  });
});

describe('top-level fields', () => {
  const roots = (n: number, through = ''): string => `{ ${through}${Array.from({ length: n }, (_, i) => `b${i}: book { title }`).join(' ')} }`;

  it('lets 20 through and refuses 21, also when some come from a fragment on Query', () => {
    expect(codes(roots(20))).toEqual([]);
    const errors = check(roots(21));
    expect(errors.map((e) => e.extensions.code)).toEqual(['TOO_MANY_ROOT_FIELDS']);
    expect(errors[0]!.message).toBe('The query: 21 top-level fields, over the limit of 20');
    expect(codes(`${roots(19, '...Q ')} fragment Q on Query { x: books { title } y: authors { name } }`)).toEqual(['TOO_MANY_ROOT_FIELDS']);
  });
});

describe('a literal limit: argument', () => {
  it('is refused over maxListLimit on any field, at any depth', () => {
    expect(codes('{ books(limit: 100) { title } }')).toEqual([]);
    const errors = check('{ books(limit: 5000) { title } }');
    expect(errors.map((e) => e.extensions.code)).toEqual(['LIMIT_TOO_LARGE']);
    expect(errors[0]!.message).toBe('books(limit: 5000) is over the largest limit of 100');
    expect(errors[0]!.locations).toEqual([{ line: 1, column: 9 }]);
    expect(codes('{ books { authors(limit: 101) { name } } }')).toEqual(['LIMIT_TOO_LARGE']);
    expect(codes('{ books { ...F } } fragment F on Book { related(limit: 99999999999999999999999) { title } }')).toContain('LIMIT_TOO_LARGE');
  });

  it('is left to execution when it is a variable, unless the default written in the document is too large', () => {
    expect(codes('query Q($n: Int) { books(limit: $n) { title } }')).toEqual([]);
    expect(codes('query Q($n: Int = 50) { books(limit: $n) { title } }')).toEqual([]);
    const errors = check('query Q($n: Int = 500) { books(limit: $n) { title } }');
    expect(errors.map((e) => e.extensions.code)).toEqual(['LIMIT_TOO_LARGE']);
    expect(errors[0]!.message).toBe('$n = 500, passed to limit:, is over the largest limit of 100');
  });

  it('follows the configured maximum, and leaves other arguments alone', () => {
    expect(codes('{ books(limit: 20) { title } }', { ...DEFAULT_QUERY_LIMITS, maxListLimit: 10 })).toEqual(['LIMIT_TOO_LARGE']);
    expect(codes('{ books(offset: 5000) { title } }')).toEqual([]);
  });
});
