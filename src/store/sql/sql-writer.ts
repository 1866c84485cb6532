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
