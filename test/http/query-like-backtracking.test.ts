// Issue 13.1: `like` / `ilike` patterns that make a backtracking matcher (regex, GLOB) run for minutes
// answer at once on every query path (SQLite SQL, the in-memory query index, PostgreSQL when
// PETAL_TEST_PG is set), and all paths give the same answers on escapes, astral characters and case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const LONG = 4_000;
const VALUES: Record<string, string> = {
  underscores: '_'.repeat(LONG),
  hashEnd: `${'x'.repeat(LONG)}#`,
  upper: `Ärger 😀 ${'A'.repeat(LONG)}#`,
  percent: 'name_with_%_percent',
  emoji: '😀',
  backslash: 'a\\b',
};

const yamlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const CONTENT = {
  'tours.items.yaml': `'items':\n  'jcr:primaryType': 'mgnl:folder'\n${Object.entries(VALUES).map(([name, v]) =>
    `  '${name}':\n    'jcr:primaryType': 'mgnl:content'\n    'description': ${yamlString(v)}\n`).join('')}`,
};
const DEFINITIONS = { 'delivery/items.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: tours\nnodeTypes: [mgnl:content]\nlimit: 100\n' };

/** [operator, pattern, names expected]: each is checked on every path. */
const CASES: [string, string, string[]][] = [
  ['like', '%_%_%_%_%_%#', ['hashEnd', 'upper']],
  ['like', '%_%_%_%_%_%_%_%_%_%_%!', []],
  ['ilike', 'ärger%_%_%_%a%a%a%a%#', ['upper']],
  ['ilike', '%_%_%_%_%ärger%', []],
  ['like', '%ärger%', []],
  ['ilike', '%😀%', ['emoji', 'upper']],
  ['like', '_', ['emoji']],
  ['like', '__', []],
  ['like', '%\\%%', ['percent']],
  ['like', 'name\\_with\\_\\%\\_percent', ['percent']],
  ['like', 'name_with___percent', ['percent']],
  ['like', 'a\\\\b', ['backslash']],
  ['like', '%\\\\%', ['backslash']],
];

interface Path { readonly name: string; t?: TestApp; store?: SqliteStore; dir?: string }
const PATHS: Path[] = [{ name: 'SQLite SQL' }, { name: 'query index' }];
if (process.env.PETAL_TEST_PG) PATHS.push({ name: 'PostgreSQL' });

beforeAll(async () => {
  for (const p of PATHS) {
    if (p.name !== 'PostgreSQL') {
      p.dir = mkdtempSync(join(tmpdir(), 'petal-like-'));
      p.store = new SqliteStore({ file: join(p.dir, 'petal.db'), queryIndexThreshold: p.name === 'query index' ? 0 : Infinity });
      await p.store.open();
    }
    p.t = await createTestApp({ definitions: DEFINITIONS, content: CONTENT, ...(p.store ? { store: p.store } : {}) });
  }
});
afterAll(async () => {
  for (const p of PATHS) {
    await p.t?.close();
    await p.store?.close();
    if (p.dir) rmSync(p.dir, { recursive: true, force: true });
  }
});

describe.each(PATHS)('like on the $name path', (path) => {
  it.each(CASES)('%s %s', async (op, pattern, expected) => {
    const r = await getJson(path.t!.app, `/.rest/delivery/items?description[${op}]=${encodeURIComponent(pattern)}`);
    expect(r.status, r.raw).toBe(200);
    expect((r.body.results as { '@name': string }[]).map((n) => n['@name']).sort()).toEqual([...expected].sort());
    expect(r.body.total).toBe(expected.length);
  });
});
