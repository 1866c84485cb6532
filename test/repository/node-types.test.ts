// The node-type hierarchy behind `nodeTypes`/`childNodeTypes` with and without `strict`.
import { describe, expect, it } from 'vitest';
import { compileTypePredicate, NodeTypeRegistry } from '../../src/repository/node-types.js';

describe('NodeTypeRegistry', () => {
  const types = new NodeTypeRegistry({ 'mgnl:product': ['mgnl:content'], 'cms:special-page': ['cms:page'] });

  it('knows the built-in hierarchy', () => {
    expect(types.isA('cms:page', 'cms:content')).toBe(true);
    expect(types.isA('cms:area', 'cms:contentNode')).toBe(true);
    expect(types.isA('cms:component', 'cms:contentNode')).toBe(true);
    expect(types.isA('cms:folder', 'cms:content')).toBe(false);
    expect(types.isA('cms:folder', 'nt:folder')).toBe(true);
    expect(types.isA('cms:componentVariants', 'cms:contentNode')).toBe(false);
    expect(types.isA('cms:area', 'cms:content')).toBe(false);
    expect(types.isA('something:unknown', 'nt:base')).toBe(true);
  });

  it('adds extra types from the configuration, with mgnl: names made canonical', () => {
    expect(types.isA('cms:product', 'cms:content')).toBe(true);
    expect(types.isA('cms:special-page', 'cms:content')).toBe(true);
    expect(types.subTypesOf('cms:page')).toEqual(expect.arrayContaining(['cms:page', 'cms:special-page']));
  });

  it('compiles predicates: sub types unless strict, none configured = no filter', () => {
    const loose = compileTypePredicate(types, ['mgnl:content'], false)!;
    expect(loose('cms:page')).toBe(true);
    expect(loose('cms:product')).toBe(true);
    expect(loose('cms:area')).toBe(false);
    const strict = compileTypePredicate(types, ['mgnl:content'], true)!;
    expect(strict('cms:page')).toBe(false);
    expect(strict('cms:content')).toBe(true);
    expect(compileTypePredicate(types, undefined, false)).toBeNull();
    expect(compileTypePredicate(types, [], true)).toBeNull();
  });
});
