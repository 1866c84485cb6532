// Store layer (SQL backends): appends SQL text and bound parameters side by side; every value goes
// through `value()`, so no value ever becomes SQL text. Placeholders are the dialect's.

export type SqlParam = string | number | null;

export interface CompiledSql {
  readonly sql: string;
  readonly params: readonly SqlParam[];
}

export class SqlWriter {
  #sql = '';
  readonly #params: SqlParam[] = [];

  constructor(private readonly placeholder: (index: number) => string) {}

  text(sql: string): this {
    this.#sql += sql;
    return this;
  }

  value(v: SqlParam): this {
    this.#params.push(v);
    this.#sql += this.placeholder(this.#params.length);
    return this;
  }

  /** `(?, ?, ?)` for a non-empty list. */
  list(values: readonly SqlParam[]): this {
    this.#sql += '(';
    values.forEach((v, i) => {
      if (i > 0) this.#sql += ', ';
      this.value(v);
    });
    this.#sql += ')';
    return this;
  }

  build(): CompiledSql {
    return { sql: this.#sql, params: [...this.#params] };
  }
}

/**
 * A `like` pattern (`%` any run, `_` one character, `\` escapes) as a GLOB pattern, which is
 * case-sensitive in SQLite (its LIKE is not), with GLOB's own wildcards made literal.
 */
export function likeToGlob(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      out += literalGlob(pattern[++i]!);
    } else if (c === '%') out += '*';
    else if (c === '_') out += '?';
    else out += literalGlob(c);
  }
  return out;
}

function literalGlob(c: string): string {
  return c === '*' || c === '?' || c === '[' ? `[${c}]` : c;
}
