// Architecture: every import in src/ goes down the layers of layers.json (or stays in its own folder),
// and no two top-level folders import each other round a cycle. The lists of tolerated exceptions below
// are empty; a listed one that is gone fails too, so such a list can only shrink.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compareWithKnown, importGraph, layerIndex, layerViolations, readLayerTable, relativeImports, SRC, unitCycles, type ImportEdge, type LayerTable,
} from './layer-check.js';

/** Imports that break the layers (`file → imported file`, relative to src/): none; a new one fails the test. */
export const KNOWN_VIOLATIONS: readonly string[] = [];

/** Cycles between top-level units today (the units of one cycle, sorted); they go with the violations above. */
export const KNOWN_CYCLES: readonly string[] = [];

const table = readLayerTable();
const graph = importGraph();

describe('the layers of src/', () => {
  it('place every top-level folder and file of src/ in exactly one layer', () => {
    const units = table.layers.flatMap((l) => l.units);
    expect(new Set(units).size).toBe(units.length);
    const present = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
      .map((e) => e.name);
    expect(present.filter((u) => !layerIndex(table).has(u))).toEqual([]);
  });

  it('see the imports of src/ (the graph is not empty)', () => {
    expect(graph.length).toBeGreaterThan(500);
    expect(graph).toContainEqual({ from: 'main.ts', to: 'http/build-app.ts' });
  });

  it('are kept: each import goes to its own folder or a lower layer, apart from the known violations', () => {
    const { added, gone } = compareWithKnown(layerViolations(graph, table), KNOWN_VIOLATIONS);
    expect(added, 'imports above their layer (file → import): fix them; do not list them').toEqual([]);
    expect(gone, 'known violations that no longer occur: remove them from KNOWN_VIOLATIONS').toEqual([]);
  });

  it('form no cycle between top-level folders, apart from the known ones', () => {
    const { added, gone } = compareWithKnown(unitCycles(graph), KNOWN_CYCLES);
    expect(added, 'new import cycles between top-level folders').toEqual([]);
    expect(gone, 'known cycles that no longer occur: remove them from KNOWN_CYCLES').toEqual([]);
  });
});

describe('the layer rule', () => {
  const small: LayerTable = {
    layers: [{ name: 'base', units: ['model'] }, { name: 'domain', units: ['assets', 'notify'] }, { name: 'http', units: ['http'] }],
    sameLayer: ['notify -> assets'],
  };
  const edges = (...pairs: [string, string][]): ImportEdge[] => pairs.map(([from, to]) => ({ from, to }));

  it('names file → import of an upward import, and of a same-layer import the table does not allow', () => {
    const found = layerViolations(edges(
      ['model/names.ts', 'http/build-app.ts'],
      ['assets/links.ts', 'notify/purger.ts'],
      ['notify/purger.ts', 'assets/links.ts'],
      ['http/build-app.ts', 'model/names.ts'],
      ['http/a.ts', 'http/b.ts'],
    ), small);
    expect(found).toEqual(['assets/links.ts → notify/purger.ts', 'model/names.ts → http/build-app.ts']);
  });

  it('names an import into or out of a folder the table does not know', () => {
    expect(layerViolations(edges(['http/a.ts', 'stray/b.ts'], ['stray/b.ts', 'model/c.ts']), small))
      .toEqual(['http/a.ts → stray/b.ts', 'stray/b.ts → model/c.ts']);
  });

  it('fails on a violation not in the known list and on a listed one that is gone', () => {
    const found = layerViolations(edges(['model/names.ts', 'http/build-app.ts']), small);
    expect(compareWithKnown(found, [])).toEqual({ added: ['model/names.ts → http/build-app.ts'], gone: [] });
    expect(compareWithKnown([], ['model/names.ts → http/build-app.ts'])).toEqual({ added: [], gone: ['model/names.ts → http/build-app.ts'] });
  });

  it('finds a cycle between folders, and none in a graph that only goes down', () => {
    expect(unitCycles(edges(['http/a.ts', 'notify/b.ts'], ['notify/b.ts', 'model/c.ts'], ['model/c.ts', 'http/d.ts']))).toEqual(['http ↔ model ↔ notify']);
    expect(unitCycles(edges(['http/a.ts', 'notify/b.ts'], ['notify/b.ts', 'model/c.ts']))).toEqual([]);
  });

  it('reads import type, re-exports and dynamic imports of a file', () => {
    const text = "import type { A } from './a.js';\nexport { b } from '../b.js';\nexport * from './c.js';\nconst d = await import('./d.js');\nimport 'node:fs';";
    expect(relativeImports(text)).toEqual(['./a.js', '../b.js', './c.js', './d.js']);
  });
});
