// GraphQL layer: queries that light modules ship, `<module>/graphql/queries/<name>.graphql`, so a
// client can run them by name or by their sha256 without sending their text. A file that cannot be
// used is a problem to report, never a reason to stop the server.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GraphQLError, parse } from 'graphql';

export interface NamedQuery {
  readonly name: string;
  readonly query: string;
  readonly file: string;
}

export interface NamedQueryProblem {
  readonly file: string;
  readonly reason: string;
}

/** Far more than a query within the parser's token limit needs; a larger file is a mistake. */
export const MAX_NAMED_QUERY_BYTES = 100 * 1024;

const EXTENSION = '.graphql';
/** Names that can travel in a URL unescaped. */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

function reasonOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
}

/** The modules of a light-modules folder (its sub-folders), sorted; none when it cannot be listed. */
function modulesOf(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isFolder(join(root, e.name))))
      .map((e) => e.name)
      .sort();
  } catch {
    return []; // a missing light-modules folder is the configuration's to report
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The named queries of the modules in these light-modules folders (`<root>/<module>/graphql/queries/
 * <name>.graphql`), in the order of the folders, then of modules and file names; a name taken by an
 * earlier module keeps its first file. A module without `graphql/queries` has none.
 */
export function loadNamedQueries(
  moduleRoots: readonly string[],
  options: { maxBytes?: number } = {},
): { queries: NamedQuery[]; problems: NamedQueryProblem[] } {
  const maxBytes = options.maxBytes ?? MAX_NAMED_QUERY_BYTES;
  const queries: NamedQuery[] = [];
  const problems: NamedQueryProblem[] = [];
  const taken = new Map<string, string>();
  for (const folder of moduleRoots.flatMap((root) => modulesOf(root).map((module) => join(root, module, 'graphql', 'queries')))) {
    let names: string[];
    try {
      names = readdirSync(folder).filter((n) => n.endsWith(EXTENSION)).sort();
    } catch (err) {
      if (reasonOf(err) !== 'ENOENT') problems.push({ file: folder, reason: `cannot be listed (${reasonOf(err)})` });
      continue;
    }
    for (const fileName of names) {
      const file = join(folder, fileName);
      const name = fileName.slice(0, -EXTENSION.length);
      const found = readQueryFile(file, maxBytes);
      if ('reason' in found) problems.push({ file, reason: found.reason });
      else if (!NAME.test(name)) problems.push({ file, reason: `the name "${name}" may hold only letters, digits, '_', '-' and '.' (not first)` });
      else if (taken.has(name)) problems.push({ file, reason: `the name "${name}" is already taken by ${taken.get(name)}; this file is ignored` });
      else {
        taken.set(name, file);
        queries.push({ name, query: found.query, file });
      }
    }
  }
  return { queries, problems };
}

function readQueryFile(file: string, maxBytes: number): { query: string } | { reason: string } {
  let bytes: Buffer;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return { reason: 'is not a file' };
    if (stat.size > maxBytes) return { reason: `is ${stat.size} bytes, over the limit of ${maxBytes}` };
    bytes = readFileSync(file);
  } catch (err) {
    return { reason: `cannot be read (${reasonOf(err)})` };
  }
  if (bytes.length > maxBytes) return { reason: `is ${bytes.length} bytes, over the limit of ${maxBytes}` }; // grew since stat
  let query: string;
  try {
    query = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { reason: 'is not UTF-8 text' };
  }
  if (query.trim() === '') return { reason: 'is empty' };
  try {
    parse(query);
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    const at = err.locations?.[0];
    return { reason: `is not a GraphQL document: ${err.message}${at === undefined ? '' : ` (line ${at.line}, column ${at.column})`}` };
  }
  return { query };
}
