// Tests for delivery/endpoint-registry.ts: longest-prefix matching on segment boundaries and last-good hot reload.
import { describe, expect, it } from 'vitest';
import type { EndpointDefinition } from '../../src/delivery/endpoint-definition.js';
import { EndpointRegistry } from '../../src/delivery/endpoint-registry.js';
import type { DefinitionProblem, LoadResult } from '../../src/delivery/load-definitions.js';

function def(endpointPath: string, source = `/lm/mod/restEndpoints${endpointPath}.yaml`, workspace = 'website'): EndpointDefinition {
  return {
    endpointPath,
    source,
    module: 'mod',
    kind: 'delivery',
    workspace,
    rootPath: '/',
    depth: 0,
    strict: false,
    limit: 10,
    maxLimit: 100,
    references: [],
    referenceDepth: 1,
    referenceRepeat: false,
    includeSystemProperties: false,
    bypassWorkspaceAcls: false,
    personalized: false,
  };
}

function broken(file: string): DefinitionProblem {
  return { file, line: 3, reason: 'invalid YAML: …', severity: 'error' };
}

function load(definitions: EndpointDefinition[], problems: DefinitionProblem[] = []): LoadResult {
  return { definitions, problems };
}

describe('EndpointRegistry.match', () => {
  const registry = new EndpointRegistry(
    load([def('/delivery'), def('/delivery/pages/v1'), def('/delivery/pagenav/v1'), def('/stories')]),
  );

  it.each([
    ['/delivery/pages/v1', '/delivery/pages/v1', ''],
    ['/delivery/pages/v1/', '/delivery/pages/v1', '/'],
    ['/delivery/pages/v1/travel/about', '/delivery/pages/v1', '/travel/about'],
    ['/delivery/pages/v1/@nodes', '/delivery/pages/v1', '/@nodes'],
    ['/delivery/pages/v1/travel@nodes', '/delivery/pages/v1', '/travel@nodes'],
    ['/delivery/pagenav/v1/travel', '/delivery/pagenav/v1', '/travel'],
    ['/delivery/other/v1', '/delivery', '/other/v1'],
    ['/delivery', '/delivery', ''],
    ['/stories/a/b/c/d/e/f/g/h/i/j/k', '/stories', '/a/b/c/d/e/f/g/h/i/j/k'],
  ])('%s → %s + %j', (request, endpointPath, rest) => {
    const m = registry.match(request);
    expect(m?.definition.endpointPath).toBe(endpointPath);
    expect(m?.rest).toBe(rest);
  });

  it('matches only at segment boundaries', () => {
    expect(registry.match('/delivery/pages/v10')?.definition.endpointPath).toBe('/delivery');
    expect(registry.match('/delivery/pages/v1@nodes')?.definition.endpointPath).toBe('/delivery');
    expect(registry.match('/storiesX')).toBeUndefined();
    expect(registry.match('/deliveryX/pages/v1')).toBeUndefined();
  });

  it.each(['', '/', 'delivery/pages/v1', '/unknown', '/.rest/delivery/pages/v1'])('%j matches nothing', (request) => {
    expect(registry.match(request)).toBeUndefined();
  });

  it('is case sensitive', () => {
    expect(registry.match('/STORIES')).toBeUndefined();
  });

  it('lists the endpoints by path and counts them', () => {
    expect(registry.size).toBe(4);
    expect(registry.list().map((d) => d.endpointPath)).toEqual([
      '/delivery',
      '/delivery/pagenav/v1',
      '/delivery/pages/v1',
      '/stories',
    ]);
  });

  it('starts empty', () => {
    const empty = new EndpointRegistry();
    expect(empty.size).toBe(0);
    expect(empty.match('/delivery/pages/v1')).toBeUndefined();
  });
});

describe('EndpointRegistry.applyLoad (hot reload)', () => {
  const A = '/lm/mod/restEndpoints/a.yaml';
  const B = '/lm/mod/restEndpoints/b.yaml';

  it('serves the new version of a file that loads', () => {
    const registry = new EndpointRegistry(load([def('/a', A, 'v1')]));
    expect(registry.applyLoad(load([def('/a', A, 'v2')]))).toEqual([]);
    expect(registry.match('/a')?.definition.workspace).toBe('v2');
  });

  it('keeps the last good version of a file that now fails', () => {
    const registry = new EndpointRegistry(load([def('/a', A), def('/b', B, 'old')]));
    const kept = registry.applyLoad(load([def('/a', A)], [broken(B)]));
    expect(kept).toEqual([B]);
    expect(registry.match('/b')?.definition.workspace).toBe('old');
    // ...and again on the next reload while it is still broken
    registry.applyLoad(load([def('/a', A)], [broken(B)]));
    expect(registry.match('/b')?.definition.workspace).toBe('old');
    // once fixed, the new version serves
    registry.applyLoad(load([def('/a', A), def('/b', B, 'new')]));
    expect(registry.match('/b')?.definition.workspace).toBe('new');
  });

  it('keeps the last good version under its old path when the broken file changed its path', () => {
    const registry = new EndpointRegistry(load([def('/b', B)]));
    registry.applyLoad(load([], [broken(B)]));
    expect(registry.match('/b')?.definition.source).toBe(B);
  });

  it('is not changed by warnings', () => {
    const registry = new EndpointRegistry(load([def('/a', A)]));
    registry.applyLoad(load([def('/a', A, 'v2')], [{ file: A, reason: 'x: unknown property', severity: 'warning' }]));
    expect(registry.match('/a')?.definition.workspace).toBe('v2');
  });

  it('drops a deleted (or disabled) file', () => {
    const registry = new EndpointRegistry(load([def('/a', A), def('/b', B)]));
    registry.applyLoad(load([def('/a', A)]));
    expect(registry.match('/b')).toBeUndefined();
    expect(registry.size).toBe(1);
  });

  it('does not serve a file that never loaded', () => {
    const registry = new EndpointRegistry(load([def('/a', A)]));
    expect(registry.applyLoad(load([def('/a', A)], [broken(B)]))).toEqual([]);
    expect(registry.size).toBe(1);
  });

  it('lets the first file win when a kept version collides with a new file', () => {
    const registry = new EndpointRegistry(load([def('/x', B, 'from-b')]));
    // b.yaml is broken now, and a.yaml (earlier in path order) newly claims /x
    registry.applyLoad(load([def('/x', A, 'from-a')], [broken(B)]));
    expect(registry.match('/x')?.definition.workspace).toBe('from-a');
    expect(registry.size).toBe(1);
  });

  it('swaps the whole snapshot: a list taken before a reload stays as it was', () => {
    const registry = new EndpointRegistry(load([def('/a', A)]));
    const before = registry.list();
    registry.applyLoad(load([def('/a', A), def('/b', B)]));
    expect(before.map((d) => d.endpointPath)).toEqual(['/a']);
    expect(registry.list().map((d) => d.endpointPath)).toEqual(['/a', '/b']);
    expect(Object.isFrozen(before)).toBe(true);
  });
});
