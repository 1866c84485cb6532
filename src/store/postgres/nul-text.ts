// PostgreSQL backend: text with U+0000, which PostgreSQL cannot store.

/**
 * PostgreSQL text cannot hold U+0000, so no stored path, id or name contains it: a value with one (from
 * a hostile request) matches nothing, without sending it to the server, which would reject it.
 */
export function hasNul(value: string): boolean {
  return value.includes('\u0000');
}

export function withoutNul(values: readonly string[]): readonly string[] {
  return values.some(hasNul) ? values.filter((v) => !hasNul(v)) : values;
}

/** Index text without U+0000 (which PostgreSQL text cannot hold; the node's JSON keeps the exact value). */
export function storableText(value: string): string {
  return value.includes('\u0000') ? value.replaceAll('\u0000', '\ufffd') : value;
}
