// GraphQL layer: the names the original's GraphQL module gives a content type's schema: the object type
// (`book` → `Book`), the list field (English plural: `book` → `books`, `bookshelf` → `bookshelves`;
// a plural name is pluralised again, as the original does: `tours` → `tourses`) and the sort enum
// (`BookSort` with `TITLE_ASC`, `TITLE_DESC` per scalar field).

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Whether `name` is a valid GraphQL name (fields, types, enum values). */
export function isGraphqlName(name: string): boolean {
  return NAME.test(name) && !name.startsWith('__');
}

/** `book` → `Book`, `tour-type` → `TourType`: a content type's name as a type name. */
export function typeNameOf(contentType: string): string {
  const parts = contentType.split(/[^0-9A-Za-z]+/).filter((p) => p !== '');
  const joined = parts.map((p) => p[0]!.toUpperCase() + p.slice(1)).join('');
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** `tour-type` → `tourType`: a content type's name as a field name. */
export function fieldNameOf(contentType: string): string {
  const type = typeNameOf(contentType);
  return type.startsWith('_') ? type : type[0]!.toLowerCase() + type.slice(1);
}

const VOWELS = 'aeiou';

/** English plural of a field name, by rule (no dictionary of irregular words, as the original). */
export function pluralOf(word: string): string {
  const lower = word.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${word}es`;
  if (lower.endsWith('y') && lower.length > 1 && !VOWELS.includes(lower[lower.length - 2]!)) return `${word.slice(0, -1)}ies`;
  if (lower.endsWith('fe')) return `${word.slice(0, -2)}ves`;
  if (lower.endsWith('f') && !lower.endsWith('ff')) return `${word.slice(0, -1)}ves`;
  return `${word}s`;
}

/** `publish_date` → `PUBLISH_DATE`, `tagLine` → `TAGLINE`: the field's part of a sort enum value. */
export function sortKeyOf(field: string): string {
  return field.toUpperCase();
}
