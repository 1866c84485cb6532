// Tests for delivery/derive-endpoint-path.ts: SPEC.md's derivation table and the underscore rules.
import { describe, expect, it } from 'vitest';
import { deriveEndpointPath, isYmlExtension } from '../../src/delivery/derive-endpoint-path.js';

describe('deriveEndpointPath', () => {
  it.each([
    // SPEC.md, Versioning, rule 1
    ['stories.yaml', '/stories'],
    ['delivery/stories.yaml', '/delivery/stories'],
    ['stories/v3.yaml', '/stories/v3'],
    ['delivery/stories_v3.yaml', '/delivery/stories/v3'],
    ['stories_v3.yaml', '/stories/v3'],
    // the corpora
    ['delivery/pages_v1.yaml', '/delivery/pages/v1'],
    ['delivery/demoTourTypes_v1.yaml', '/delivery/demoTourTypes/v1'],
    ['delivery/tours.yaml', '/delivery/tours'],
  ])('%s → %s', (file, expected) => {
    expect(deriveEndpointPath(file)).toBe(expected);
  });

  it.each([
    ['my_tours_v1.yaml', '/my_tours/v1'],
    ['a/b/my_tours_v1.yaml', '/a/b/my_tours/v1'],
    ['_v1.yaml', '/_v1'],
    ['v1_.yaml', '/v1_'],
    ['a__b.yaml', '/a_/b'],
    ['_.yaml', '/_'],
  ])('splits only at the last underscore with both parts non-empty: %s → %s', (file, expected) => {
    expect(deriveEndpointPath(file)).toBe(expected);
  });

  it('does not split folder names, only the file name', () => {
    expect(deriveEndpointPath('my_folder/stories.yaml')).toBe('/my_folder/stories');
  });

  it('accepts Windows separators', () => {
    expect(deriveEndpointPath('delivery\\pages_v1.yaml')).toBe('/delivery/pages/v1');
  });
});

describe('isYmlExtension', () => {
  it.each([
    ['pages_v1.yml', true],
    ['PAGES.YML', true],
    ['pages_v1.yaml', false],
    ['yml', false],
  ])('%s → %s', (file, expected) => {
    expect(isYmlExtension(file)).toBe(expected);
  });
});
