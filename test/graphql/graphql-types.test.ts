// Issue 32: `petal types --graphql-schema --graphql-types` writes the GraphQL API's schema (the SDL the
// server answers introspection with) and its TypeScript types; a graphql-request client typed by them
// compiles, and one misusing a result does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { main } from '../../src/cli.js';
import { buildGraphql, DEFAULT_GRAPHQL_SETTINGS } from '../../src/graphql/graphql-api.js';
import { clientExample } from '../../src/graphql/schema-types.js';
import { FIXTURES } from './bookcase.js';

const REPO = join(import.meta.dirname, '..', '..');

function compile(dir: string): string[] {
  const program = ts.createProgram([join(dir, 'client.ts')], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('petal types for the GraphQL API', () => {
  let dir: string;
  beforeAll(() => {
    // Below the repository's node_modules, so that the client resolves graphql and graphql-request.
    mkdirSync(join(REPO, 'node_modules', '.cache'), { recursive: true });
    dir = mkdtempSync(join(REPO, 'node_modules', '.cache', 'petal-graphql-types-'));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(join(dir, 'petal.yaml'), `modules: ${JSON.stringify(join(FIXTURES, 'light-modules'))}\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the SDL the server serves and types a graphql-request client compiles against', async () => {
    const sdl = join(dir, 'schema.graphql');
    const types = join(dir, 'petal-graphql.ts');
    expect(await main(['types', '--config', join(dir, 'petal.yaml'), '--graphql-schema', sdl, '--graphql-types', types])).toBe(0);
    expect(readFileSync(sdl, 'utf8')).toBe(buildGraphql([join(FIXTURES, 'light-modules')], DEFAULT_GRAPHQL_SETTINGS).sdl);
    expect(readFileSync(sdl, 'utf8')).toMatch(/type Query \{[\s\S]*books\([\s\S]*sort: \[BookSort!\][\s\S]*\): \[Book!\]!/);
    const text = readFileSync(types, 'utf8');
    expect(text).toContain('export interface Book {');
    expect(text).toContain('export type BookSort =');
    writeFileSync(join(dir, 'client.ts'), clientExample('./petal-graphql.js', 'books', 'Book', 'title'));
    expect(compile(dir)).toEqual([]);
  }, 180_000);

  it('a client misusing a result does not compile', () => {
    writeFileSync(join(dir, 'client.ts'), `${clientExample('./petal-graphql.js', 'books', 'Book', 'title')}
export async function wrong(endpoint: string): Promise<number> {
  const books = await list(endpoint);
  return books[0]?.title ?? 0;
}
`);
    expect(compile(dir).join('\n')).toMatch(/not assignable to type 'number'/);
  }, 180_000);
});
