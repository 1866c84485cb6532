// Store layer: whether a store URL names a store Petal already made, without making it. Read-only commands
// check this first: opening a missing store would create an empty one and answer "nothing" about it.
import { existsSync } from 'node:fs';
import pg from 'pg';

/** undefined when the store is there; else where it was looked for (a file, or a database without its schema). */
export async function missingStore(url: string): Promise<string | undefined> {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    return existsSync(file) ? undefined : file;
  }
  return (await hasPetalSchema(url)) ? undefined : `${redacted(url)} (no Petal schema: no schema_migrations table)`;
}

/** A database that does not exist has no schema; other connection failures are thrown as they are. */
async function hasPetalSchema(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    if ((err as { code?: unknown }).code === '3D000') return false; // invalid_catalog_name: no such database
    throw err;
  }
  try {
    const { rows } = await client.query<{ found: string | null }>("SELECT to_regclass('schema_migrations')::text AS found");
    return rows[0]?.found !== null && rows[0]?.found !== undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
