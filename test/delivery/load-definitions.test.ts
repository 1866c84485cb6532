// Tests for delivery/load-definitions.ts: every light-modules folder of the shared corpora, plus edge cases in temp dirs.
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDefinitionFile, loadDefinitions, type DefinitionProblem } from '../../src/delivery/load-definitions.js';

import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';

/** Every `light-modules` folder below the corpora (read-only). */
function findLightModules(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    if (e.name === 'light-modules') out.push(full);
    else out.push(...findLightModules(full));
  }
  return out;
}

const PAGES_NAV = ['/delivery/pagenav/v1', '/delivery/pages/v1'];
const SAAS = ['/delivery/pages/v1', '/delivery/pagesnav/v1', '/delivery/watches/v1'];
const SAAS_PAGES = ['/delivery/pages/v1'];

/** Endpoint paths per corpus folder, and the files expected to fail (relative path → reason pattern). */
const EXPECTED: Record<string, { paths: string[]; errors?: Record<string, { reason: RegExp; line?: number }> }> = {
  'daily-planet/light-modules': { paths: PAGES_NAV },
  'magnetic-saas/light-modules': { paths: SAAS },
  'magnetic-saas/_history/09e93bf/light-modules': { paths: SAAS_PAGES },
  'magnetic-saas/_history/287b736/light-modules': { paths: SAAS },
  // norsuReferenceResolver without targetWorkspace: as committed, it cannot resolve anything.
  'magnetic-saas/_history/613b989/light-modules': {
    paths: [],
    errors: { 'pages_v1.yaml': { reason: /^references\[1\]\.referenceResolver\.targetWorkspace: required$/, line: 12 } },
  },
  'magnetic-saas/_history/74b6373/light-modules': { paths: SAAS_PAGES },
  // Invalid YAML as committed: the resolver's keys are mis-indented from line 13 on.
  'magnetic-saas/_history/a7f2137/light-modules': {
    paths: [],
    errors: { 'pages_v1.yaml': { reason: /^invalid YAML: /, line: 13 } },
  },
  'magnetic-saas/_history/ab3e36b/light-modules': { paths: SAAS_PAGES },
  'magnetic-saas/_history/cba4212/light-modules': { paths: SAAS_PAGES },
  // A resolver type that exists in neither SPEC.md nor the original CMS's public modules.
  'magnetic-saas/_history/d205363/light-modules': {
    paths: [],
    errors: { 'pages_v1.yaml': { reason: /^references\[1\]\.referenceResolver\.\$type: unknown reference resolver "pageReferenceResolver"/, line: 12 } },
  },
  'magnetic-saas/_history/db46dac/light-modules': { paths: SAAS_PAGES },
  'nuxt3-startkit/magnolia/light-modules': { paths: PAGES_NAV },
  'react-demos/light-modules': { paths: ['/delivery/demoDestinations/v1', '/delivery/demoTourTypes/v1', '/delivery/demoTours/v1'] },
  'simple-headless-demo/light-modules': { paths: ['/delivery/pagesDemo/v1', '/delivery/storiesDemo/v1'] },
  'travel-spa/_vuejs-branch/magnolia/light-modules': { paths: ['/delivery/pagenav/v1', '/delivery/pages/v1', '/delivery/tours'] },
  'travel-spa/magnolia/light-modules': { paths: PAGES_NAV },
};

// Skipped where the original CMS's corpora are absent (PETAL_CORPORA; test/helpers/corpora.ts warns); CI beside ../shared runs it.
describe.skipIf(!CORPORA_AVAILABLE)('loadDefinitions: the shared corpora', () => {
  const roots = (CORPORA_AVAILABLE ? findLightModules(CORPORA) : []).map((r) => path.relative(CORPORA, r)).sort();

  it('finds every light-modules folder listed here, and no other', () => {
    expect(roots).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(roots)('%s loads with the expected endpoint paths', async (root) => {
    const expected = EXPECTED[root]!;
    const result = await loadDefinitions([path.join(CORPORA, root)]);
    expect(result.definitions.map((d) => d.endpointPath).sort()).toEqual(expected.paths);

    const errors = result.problems.filter((p) => p.severity === 'error');
    const expectedErrors = Object.entries(expected.errors ?? {});
    expect(errors).toHaveLength(expectedErrors.length);
    for (const [file, { reason, line }] of expectedErrors) {
      const problem = errors.find((p) => p.file.endsWith(`/${file}`));
      expect(problem, file).toBeDefined();
      expect(problem!.reason).toMatch(reason);
      expect(problem!.line).toBe(line);
      expect(path.isAbsolute(problem!.file)).toBe(true);
    }
    // Real files use no unknown keys; the only warning is daily-planet's decoration of another module's endpoint.
    const warnings = result.problems.filter((p) => p.severity === 'warning');
    if (root === 'daily-planet/light-modules') {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.file).toMatch(/decorations\/spa-rendering\/restEndpoints\/.*\.yaml$/);
      expect(warnings[0]!.reason).toMatch(/decorations of endpoint definitions are not supported yet/);
    } else {
      expect(warnings).toEqual([]);
    }
  });

  it('keeps loading the other folders when one holds invalid YAML', async () => {
    const all = roots.filter((r) => r.startsWith('magnetic-saas/_history/')).map((r) => path.join(CORPORA, r));
    const result = await loadDefinitions(all);
    const invalid = result.problems.find((p) => p.file.includes('/a7f2137/'));
    expect(invalid).toMatchObject({ severity: 'error', line: 13 });
    expect(invalid!.file).toBe(path.join(CORPORA, 'magnetic-saas/_history/a7f2137/light-modules/saas-demo/restEndpoints/delivery/pages_v1.yaml'));
    // The first file in path order (09e93bf) wins /delivery/pages/v1; the later ones are duplicates.
    expect(result.definitions.map((d) => d.endpointPath).sort()).toEqual(SAAS);
    expect(result.definitions.find((d) => d.endpointPath === '/delivery/pages/v1')!.source).toContain('/09e93bf/');
  });

  it('maps the travel-spa definitions as the original CMS would', async () => {
    const { definitions } = await loadDefinitions([path.join(CORPORA, 'travel-spa/magnolia/light-modules')]);
    const pages = definitions.find((d) => d.endpointPath === '/delivery/pages/v1')!;
    expect(pages).toMatchObject({
      module: 'spa-lm',
      kind: 'delivery',
      workspace: 'website',
      depth: 10,
      personalized: true,
      bypassWorkspaceAcls: true,
      nodeTypes: ['cms:page'],
      childNodeTypes: ['cms:area', 'cms:component', 'cms:contentNode'],
      systemProperties: ['cms:lastModified', 'cms:created', 'cms:template'],
      references: [{ name: 'assetReference', propertyName: 'image', resolver: { kind: 'assetReferenceResolver' } }],
    });
    const nav = definitions.find((d) => d.endpointPath === '/delivery/pagenav/v1')!;
    expect(nav).toMatchObject({ depth: 2, limit: 50, childNodeTypes: ['cms:page'] });
  });

  it('maps the react-demos tours references', async () => {
    const { definitions } = await loadDefinitions([path.join(CORPORA, 'react-demos/light-modules')]);
    const tours = definitions.find((d) => d.endpointPath === '/delivery/demoTours/v1')!;
    expect(tours.references.map((r) => r.resolver)).toEqual([
      { kind: 'jcrReferenceResolver', targetWorkspace: 'category', expand: true, generateLink: false, depthInReferencedNode: 1 },
      { kind: 'jcrReferenceResolver', targetWorkspace: 'category', expand: true, generateLink: false, depthInReferencedNode: 1 },
      { kind: 'assetReferenceResolver', expand: true, includeDownloadLink: true, includeAssetMetadata: true, assetRenditions: ['320x240', '960x720'] },
    ]);
    const destinations = definitions.find((d) => d.endpointPath === '/delivery/demoDestinations/v1')!;
    expect(destinations).toMatchObject({ workspace: 'category', rootPath: '/destinations', limit: 20 });
  });

  it('gives the newer magnetic-saas pages type its presets', async () => {
    const { definitions } = await loadDefinitions([path.join(CORPORA, 'magnetic-saas/light-modules')]);
    const pages = definitions.find((d) => d.endpointPath === '/delivery/pages/v1')!;
    expect(pages).toMatchObject({ kind: 'pages', workspace: 'website', depth: 100, referenceDepth: 2 });
    expect(pages.references[2]!.resolver).toEqual({
      kind: 'jcrReferenceResolver',
      targetWorkspace: 'website',
      expand: true,
      generateLink: true,
      depthInReferencedNode: 1,
    });
  });
});

describe('loadDefinitions: edge cases', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'petal-defs-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  function write(relative: string, text: string): string {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  }

  const VALID = '$type: jcrDeliveryEndpoint_v2\nworkspace: tours\n';
  const errorsOf = (problems: DefinitionProblem[]): DefinitionProblem[] => problems.filter((p) => p.severity === 'error');

  it('refuses a definition file larger than 4 MiB, and nested aliases, naming the file', async () => {
    const big = write('mod/restEndpoints/delivery/big_v1.yaml', `${VALID}# ${'x'.repeat(4 * 1024 * 1024)}\n`);
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const lines = [`x0: &l0 [${keys.map(() => 'lol').join(', ')}]`];
    for (let l = 1; l <= 8; l++) lines.push(`x${l}: &l${l} [${keys.map(() => `*l${l - 1}`).join(', ')}]`);
    const bomb = write('mod/restEndpoints/delivery/bomb_v1.yaml', `${VALID}${lines.join('\n')}\n`);
    const result = await loadDefinitions([root]);
    expect(result.definitions).toEqual([]);
    const errors = errorsOf(result.problems);
    expect(errors.find((p) => p.file === big)?.reason).toMatch(/larger than 4194304 bytes/);
    expect(errors.find((p) => p.file === bomb)?.reason).toMatch(/aliases expand too much/);
  });

  it('rejects .yml files with a clear message and does not load them', async () => {
    const file = write('mod/restEndpoints/delivery/tours_v1.yml', VALID);
    const result = await loadDefinitions([root]);
    expect(result.definitions).toEqual([]);
    expect(result.problems).toEqual([{ file, line: undefined, reason: expect.stringMatching(/use the \.yaml extension/), severity: 'error' }]);
  });

  it('reports a duplicate endpoint path on the later file; the first one wins', async () => {
    const first = write('a-mod/restEndpoints/delivery/tours_v1.yaml', VALID);
    const second = write('b-mod/restEndpoints/delivery/tours/v1.yaml', VALID);
    const third = write('c-mod/restEndpoints/other.yaml', `${VALID}endpointPath: /delivery/tours/v1\n`);
    const result = await loadDefinitions([root]);
    expect(result.definitions.map((d) => d.source)).toEqual([first]);
    const errors = errorsOf(result.problems);
    expect(errors.map((p) => p.file)).toEqual([second, third]);
    expect(errors[0]!.reason).toBe(`endpoint path /delivery/tours/v1 is already defined by ${first}; this file is not loaded`);
  });

  it('reports duplicates across module roots too', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'petal-defs-'));
    try {
      write('mod/restEndpoints/x.yaml', VALID);
      mkdirSync(path.join(other, 'mod2/restEndpoints'), { recursive: true });
      writeFileSync(path.join(other, 'mod2/restEndpoints/x.yaml'), VALID);
      const result = await loadDefinitions([root, other]);
      expect(result.definitions).toHaveLength(1);
      expect(errorsOf(result.problems)).toHaveLength(1);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('skips disabled definitions silently, even incomplete ones', async () => {
    write('mod/restEndpoints/off.yaml', `${VALID}enabled: false\n`);
    write('mod/restEndpoints/draft.yaml', 'enabled: false\n');
    write('mod/restEndpoints/on.yaml', `${VALID}enabled: true\n`);
    const result = await loadDefinitions([root]);
    expect(result.definitions.map((d) => d.endpointPath)).toEqual(['/on']);
    expect(result.problems).toEqual([]);
  });

  it('reports invalid YAML with its line and keeps loading the other files', async () => {
    const bad = write('mod/restEndpoints/bad.yaml', '$type: jcrDeliveryEndpoint_v2\nworkspace: tours\n  depth: [1\n');
    write('mod/restEndpoints/good.yaml', VALID);
    const result = await loadDefinitions([root]);
    expect(result.definitions.map((d) => d.endpointPath)).toEqual(['/good']);
    const [problem] = errorsOf(result.problems);
    expect(problem).toMatchObject({ file: bad, severity: 'error', reason: expect.stringMatching(/^invalid YAML: /) });
    expect(problem!.line).toBeGreaterThanOrEqual(2);
  });

  it('reports a duplicate key as invalid YAML', async () => {
    write('mod/restEndpoints/dup.yaml', `${VALID}workspace: other\n`);
    const [problem] = errorsOf((await loadDefinitions([root])).problems);
    expect(problem).toMatchObject({ line: 3, reason: expect.stringMatching(/^invalid YAML: Map keys must be unique/) });
  });

  it('names the line of a validation error', async () => {
    write('mod/restEndpoints/x.yaml', `${VALID}limit: 50\ndepth: ten\n`);
    const [problem] = errorsOf((await loadDefinitions([root])).problems);
    expect(problem).toMatchObject({ line: 4, reason: 'depth: expected a non-negative integer, got "ten"' });
  });

  it('survives custom tags such as !include and !content, with a warning', async () => {
    write('mod/restEndpoints/x.yaml', `${VALID}references: !include /mod/includes/refs.yaml\n`);
    write('mod/restEndpoints/y.yaml', `${VALID}nodeTypes: !content\n  - mgnl:page\n`);
    const result = await loadDefinitions([root]);
    expect(result.definitions.map((d) => d.endpointPath)).toEqual(['/y']);
    expect(result.definitions[0]!.nodeTypes).toEqual(['cms:page']);
    const x = result.problems.filter((p) => p.file.endsWith('x.yaml'));
    expect(x.map((p) => p.severity).sort()).toEqual(['error', 'warning']);
    expect(x.find((p) => p.severity === 'warning')).toMatchObject({ line: 3, reason: expect.stringMatching(/!include/) });
    expect(x.find((p) => p.severity === 'error')!.reason).toMatch(/^references: expected a list/);
  });

  it('reads YAML 1.1 booleans as the original CMS does', async () => {
    write('mod/restEndpoints/x.yaml', `${VALID}bypassWorkspaceAcls: yes\nstrict: off\n`);
    const { definitions } = await loadDefinitions([root]);
    expect(definitions[0]).toMatchObject({ bypassWorkspaceAcls: true, strict: false });
  });

  it('reports unknown keys as warnings and still loads the file', async () => {
    const file = write('mod/restEndpoints/x.yaml', `${VALID}cacheable: true\n`);
    const result = await loadDefinitions([root]);
    expect(result.definitions).toHaveLength(1);
    expect(result.problems).toEqual([{ file, reason: 'cacheable: unknown property, ignored', severity: 'warning' }]);
  });

  it('reports an empty file as an error', async () => {
    write('mod/restEndpoints/empty.yaml', '\n# nothing yet\n');
    const [problem] = errorsOf((await loadDefinitions([root])).problems);
    expect(problem!.reason).toMatch(/the file is empty/);
  });

  it('ignores other files, dot-folders, node_modules and non-endpoint decorations', async () => {
    write('mod/restEndpoints/README.md', '# docs');
    write('mod/restEndpoints/.drafts/x.yaml', VALID);
    write('node_modules/pkg/restEndpoints/x.yaml', VALID);
    write('mod/decorations/site/config.yaml', 'foo: bar\n');
    write('mod/templates/pages/x.yaml', 'title: x\n');
    const result = await loadDefinitions([root]);
    expect(result).toEqual({ definitions: [], problems: [] });
  });

  it('warns once per decoration file of another module’s endpoints', async () => {
    const file = write('mod/decorations/other-mod/restEndpoints/delivery/pages_v1.yaml', 'depth: 3\n');
    const result = await loadDefinitions([root]);
    expect(result.definitions).toEqual([]);
    expect(result.problems).toEqual([{ file, reason: expect.stringMatching(/module "other-mod" is ignored/), severity: 'warning' }]);
  });

  it('reports a module root that cannot be read', async () => {
    const missing = path.join(root, 'nope');
    const result = await loadDefinitions([missing]);
    expect(result.problems).toEqual([{ file: missing, reason: expect.stringMatching(/cannot be read/), severity: 'error' }]);
  });

  it('loadDefinitionFile loads one file with its module and derived path', async () => {
    const file = write('my-mod/restEndpoints/api/my_tours_v2.yaml', VALID);
    const result = await loadDefinitionFile(file, root);
    expect(result.problems).toEqual([]);
    expect(result.definition).toMatchObject({ source: file, module: 'my-mod', endpointPath: '/api/my_tours/v2' });
  });

  it('loadDefinitionFile rejects a file outside restEndpoints and a missing file', async () => {
    const outside = write('my-mod/templates/x.yaml', VALID);
    expect((await loadDefinitionFile(outside, root)).problems[0]!.reason).toMatch(/not an endpoint definition/);
    const gone = await loadDefinitionFile(path.join(root, 'my-mod/restEndpoints/gone.yaml'), root);
    expect(gone.definition).toBeUndefined();
    expect(gone.problems[0]!.reason).toMatch(/cannot read the file/);
  });
});
