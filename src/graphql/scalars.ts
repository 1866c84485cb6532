// GraphQL layer: the scalars of the original's schema besides GraphQL's own: `Date` (ISO 8601 text, as
// delivery writes dates), `Long` (64-bit integers, written as JSON numbers while they are exact, as text
// beyond) and `Locale` (a BCP 47 tag with hyphens: `de`, `fi-FI`).
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

export const DateScalar = new GraphQLScalarType({
  name: 'Date',
  description: 'An ISO 8601 date-time with its offset, as stored (e.g. 2024-05-01T10:00:00.000+02:00).',
  serialize: (v) => (typeof v === 'string' ? v : String(v)),
  parseValue: (v) => {
    if (typeof v !== 'string') throw new GraphQLError('a Date is an ISO 8601 string');
    return v;
  },
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('a Date is an ISO 8601 string', { nodes: ast });
    return ast.value;
  },
});

function longOf(v: unknown): number | string {
  if (typeof v === 'number') return v;
  const text = String(v);
  const n = Number(text);
  return /^-?\d+$/.test(text) && Number.isSafeInteger(n) ? n : text;
}

export const LongScalar = new GraphQLScalarType({
  name: 'Long',
  description: 'A 64-bit integer: a JSON number while it is exact in IEEE 754 doubles, its decimal text beyond.',
  serialize: longOf,
  parseValue: (v) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new GraphQLError('a Long is an integer');
    return v;
  },
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.INT) throw new GraphQLError('a Long is an integer', { nodes: ast });
    return Number(ast.value);
  },
});

const LOCALE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}$/;

function localeOf(v: unknown): string {
  if (typeof v !== 'string' || !LOCALE.test(v)) {
    throw new GraphQLError(`${JSON.stringify(v)} is no locale: a BCP 47 tag with hyphens, such as "de" or "fi-FI"`);
  }
  return v;
}

export const LocaleScalar = new GraphQLScalarType({
  name: 'Locale',
  description: 'A BCP 47 language tag with hyphens (de, fi-FI); the closest language of the site is served, else its default.',
  serialize: (v) => String(v),
  parseValue: localeOf,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('a Locale is a string such as "de"', { nodes: ast });
    try {
      return localeOf(ast.value);
    } catch (err) {
      throw new GraphQLError((err as Error).message, { nodes: ast });
    }
  },
});
