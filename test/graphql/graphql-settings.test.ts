// Issue 32: petal.yaml `graphql:`: its defaults (introspection and GraphiQL off in production), what it
// refuses (a default page larger than the largest), and introspection switched off through HTTP.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { DEFAULT_GRAPHQL_SETTINGS, graphqlSettingsOf } from '../../src/graphql/graphql-api.js';
import { graphiqlEnabled } from '../../src/http/routes/graphiql.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { BOOKCASE_SECURITY, FIXTURES } from './bookcase.js';

describe('petal.yaml graphql:', () => {
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'petal-graphql-config-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const load = (text: string) => {
    writeFileSync(join(dir, 'petal.yaml'), text);
    return loadConfig({}, {}, dir);
  };

  it('defaults: introspection and GraphiQL on, except when NODE_ENV=production; the limits of the original', () => {
    expect(graphqlSettingsOf(undefined, undefined)).toEqual(DEFAULT_GRAPHQL_SETTINGS);
    expect(graphqlSettingsOf(undefined, 'production').introspection).toBe(false);
    expect(graphqlSettingsOf({ introspection: true }, 'production').introspection).toBe(true);
    expect(graphiqlEnabled(undefined, 'production')).toBe(false);
    expect(graphiqlEnabled(undefined, 'development')).toBe(true);
    expect(DEFAULT_GRAPHQL_SETTINGS.limits).toMatchObject({ maxDepth: 15, maxComplexity: 200, maxListLimit: 100 });
  });

  it('reads the keys it knows and says which it does not', () => {
    const c = load('graphql: { maxDepth: 8, maxComplexity: 500, maxLimit: 50, defaultLimit: 10, maxItems: 900, automaticPersistedQueries: false }\n');
    const s = graphqlSettingsOf(c.graphql, undefined);
    expect(s.limits).toMatchObject({ maxDepth: 8, maxComplexity: 500, maxListLimit: 50 });
    expect(s).toMatchObject({ defaultLimit: 10, maxItems: 900, automaticPersistedQueries: false });
    expect(() => load('graphql: { depth: 3 }\n')).toThrow(ConfigError);
  });

  it('refuses a default page larger than the largest, naming both', () => {
    let err: unknown;
    try {
      load('graphql: { maxLimit: 50, defaultLimit: 80 }\n');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('defaultLimit must not exceed maxLimit');
  });
});

describe('introspection switched off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      moduleRoots: [join(FIXTURES, 'light-modules')], contentPaths: [join(FIXTURES, 'content')], security: BOOKCASE_SECURITY,
      graphql: { ...DEFAULT_GRAPHQL_SETTINGS, introspection: false },
    });
  });
  afterAll(async () => t?.close());

  it('refuses __schema and __type with 400, and still answers queries', async () => {
    const post = (query: string) => t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query }) });
    const intro = await post(getIntrospectionQuery());
    expect(intro.statusCode).toBe(400);
    expect(JSON.parse(intro.body).errors[0].message).toContain('introspection');
    expect((await post('{ __type(name: "Book") { name } }')).statusCode).toBe(400);
    expect(JSON.parse((await post('{ books(limit: 1) { title } }')).body).data.books).toHaveLength(1);
  });
});
