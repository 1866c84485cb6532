// PostgreSQL backend: rows sent with `COPY … FROM STDIN` (text format), PostgreSQL's bulk-load path.
// An INSERT of parallel arrays makes the server parse one array literal per column and plan the
// statement; COPY streams the rows straight into the table, and building its text costs the client
// less than serializing the arrays did. Inside the caller's transaction: a failed COPY aborts it, and
// nothing of it is written (see import-documents.ts).
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A value of a COPY row: text, a number, or null (`\N`). */
export type CopyValue = string | number | null;

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped; null as `\N`. */
export function copyText(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPES[c]!) : value;
}

/** Values as one line of COPY's text format, without its newline. */
export function copyLine(values: readonly CopyValue[]): string {
  let line = copyText(values[0]!);
  for (let i = 1; i < values.length; i++) line += `\t${copyText(values[i]!)}`;
  return line;
}

/**
 * Sends `lines` (see copyLine) with `COPY table (columns) FROM STDIN` on the client; resolves with the
 * row count once the server has written them all, rejects with the server's error otherwise. The
 * table and columns are fixed identifiers of the caller, never input.
 */
export function copyRows(client: pg.PoolClient, table: string, columns: readonly string[], lines: readonly string[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
    stream.on('error', reject);
    stream.on('finish', () => resolve(stream.rowCount));
    stream.end(`${lines.join('\n')}\n`, 'utf8');
  });
}
