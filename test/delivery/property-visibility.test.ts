// Tests for delivery/property-visibility.ts: the rules for property lists (endpoint × request):
// include lists intersect, exclude lists concatenate, exclusions are ignored under an include list,
// system properties need includeSystemProperties or systemProperties, `mgnl:` in lists means `cms:`.
import { describe, expect, it } from 'vitest';
import { compileVisibility, type PropertyListSettings } from '../../src/delivery/property-visibility.js';

const NAMES = ['title', 'text', 'image', 'jcr:uuid', 'jcr:primaryType', 'cms:lastModified', 'cms:template'] as const;

/** The names of NAMES that the settings show. */
function visible(endpoint: PropertyListSettings, request?: Parameters<typeof compileVisibility>[1]): string[] {
  const v = compileVisibility(endpoint, request);
  return NAMES.filter((n) => v(n));
}

const PLAIN: PropertyListSettings = { includeSystemProperties: false };
const SYSTEM: PropertyListSettings = { includeSystemProperties: true };

describe('compileVisibility: no lists', () => {
  it('shows every non-system property', () => {
    expect(visible(PLAIN)).toEqual(['title', 'text', 'image']);
    expect(visible(PLAIN, {})).toEqual(['title', 'text', 'image']);
  });

  it('shows system properties with includeSystemProperties', () => {
    expect(visible(SYSTEM)).toEqual([...NAMES]);
  });

  it('treats jcr: and cms: names as system properties', () => {
    const v = compileVisibility(PLAIN);
    expect(v('jcr:created')).toBe(false);
    expect(v('cms:created')).toBe(false);
    expect(v('jcrTitle')).toBe(true); // no colon: not the jcr: prefix
    expect(v('cmsx:foo')).toBe(true);
    expect(v('other:foo')).toBe(true);
  });

  it('answers the same for repeated calls', () => {
    const v = compileVisibility({ includeSystemProperties: false, properties: ['title'] });
    for (let i = 0; i < 3; i++) {
      expect(v('title')).toBe(true);
      expect(v('text')).toBe(false);
      expect(v('jcr:uuid')).toBe(false);
    }
  });
});

describe('compileVisibility: systemProperties', () => {
  it('shows only the named system properties without includeSystemProperties', () => {
    expect(visible({ includeSystemProperties: false, systemProperties: ['jcr:uuid', 'cms:template'] }))
      .toEqual(['title', 'text', 'image', 'jcr:uuid', 'cms:template']);
  });

  it('reads mgnl: names in systemProperties as cms:', () => {
    expect(visible({ includeSystemProperties: false, systemProperties: ['mgnl:lastModified'] }))
      .toEqual(['title', 'text', 'image', 'cms:lastModified']);
  });

  it('lets a named system property pass an include list', () => {
    expect(visible({ includeSystemProperties: false, systemProperties: ['jcr:uuid'], properties: ['title'] }))
      .toEqual(['title', 'jcr:uuid']);
    expect(visible({ includeSystemProperties: false, systemProperties: ['jcr:uuid'] }, { properties: ['text'] }))
      .toEqual(['text', 'jcr:uuid']);
    expect(visible({ includeSystemProperties: true, systemProperties: ['cms:template'], properties: ['title'] }))
      .toEqual(['title', 'cms:template']);
  });

  it('does not show a system property named only in the include list without includeSystemProperties', () => {
    expect(visible({ includeSystemProperties: false, properties: ['title', 'jcr:uuid'] })).toEqual(['title']);
  });

  it('filters system properties by the include list with includeSystemProperties', () => {
    expect(visible({ includeSystemProperties: true, properties: ['title', 'jcr:uuid'] })).toEqual(['title', 'jcr:uuid']);
    expect(visible({ includeSystemProperties: true, properties: ['title'] })).toEqual(['title']);
  });

  it('applies exclusions to system properties too', () => {
    expect(visible({ includeSystemProperties: true, excludeProperties: ['jcr:uuid', 'mgnl:template'] }))
      .toEqual(['title', 'text', 'image', 'jcr:primaryType', 'cms:lastModified']);
    expect(visible({ includeSystemProperties: false, systemProperties: ['jcr:uuid'] }, { excludeProperties: ['jcr:uuid'] }))
      .toEqual(['title', 'text', 'image']);
  });
});

describe('compileVisibility: include lists', () => {
  it('uses the endpoint list alone', () => {
    expect(visible({ includeSystemProperties: false, properties: ['title', 'image', 'missing'] })).toEqual(['title', 'image']);
  });

  it('uses the request list alone', () => {
    expect(visible(PLAIN, { properties: ['text'] })).toEqual(['text']);
  });

  it('intersects the endpoint and request lists', () => {
    expect(visible({ includeSystemProperties: false, properties: ['title', 'text'] }, { properties: ['text', 'image'] }))
      .toEqual(['text']);
    expect(visible({ includeSystemProperties: false, properties: ['title'] }, { properties: ['image'] })).toEqual([]);
  });

  it('intersects system names after mgnl: → cms:', () => {
    expect(visible({ includeSystemProperties: true, properties: ['mgnl:template', 'title'] }, { properties: ['cms:template'] }))
      .toEqual(['cms:template']);
    expect(visible({ includeSystemProperties: true, properties: ['cms:lastModified'] }, { properties: ['mgnl:lastModified'] }))
      .toEqual(['cms:lastModified']);
  });

  it('shows nothing (but named system properties) for an empty include list', () => {
    expect(visible({ includeSystemProperties: false, properties: [] })).toEqual([]);
    expect(visible({ includeSystemProperties: false, systemProperties: ['jcr:uuid'] }, { properties: [] })).toEqual(['jcr:uuid']);
  });
});

describe('compileVisibility: exclude lists', () => {
  it('uses the endpoint list alone', () => {
    expect(visible({ includeSystemProperties: false, excludeProperties: ['text'] })).toEqual(['title', 'image']);
  });

  it('uses the request list alone', () => {
    expect(visible(PLAIN, { excludeProperties: ['image'] })).toEqual(['title', 'text']);
  });

  it('concatenates the endpoint and request lists', () => {
    expect(visible({ includeSystemProperties: false, excludeProperties: ['text'] }, { excludeProperties: ['image'] }))
      .toEqual(['title']);
  });

  it('reads mgnl: names as cms:', () => {
    expect(visible({ includeSystemProperties: true, excludeProperties: ['mgnl:lastModified'] }, { excludeProperties: ['mgnl:template'] }))
      .toEqual(['title', 'text', 'image', 'jcr:uuid', 'jcr:primaryType']);
  });

  it('is ignored when the endpoint has an include list', () => {
    expect(visible({ includeSystemProperties: false, properties: ['title', 'text'], excludeProperties: ['text'] }))
      .toEqual(['title', 'text']);
    expect(visible({ includeSystemProperties: false, properties: ['title', 'text'] }, { excludeProperties: ['title'] }))
      .toEqual(['title', 'text']);
  });

  it("of the request is ignored when the request has an include list", () => {
    expect(visible(PLAIN, { properties: ['title'], excludeProperties: ['title'] })).toEqual(['title']);
  });

  it("of the definition binds whatever the request's include list (rule 4 is about the definition's own lists)", () => {
    expect(visible({ includeSystemProperties: false, excludeProperties: ['text'] }, { properties: ['text', 'image'] }))
      .toEqual(['image']);
    expect(visible({ includeSystemProperties: true, excludeProperties: ['mgnl:template'] }, { properties: ['cms:template', 'title'] }))
      .toEqual(['title']);
  });

  it('is ignored under an include list with system properties too', () => {
    expect(visible({ includeSystemProperties: true, properties: ['jcr:uuid'], excludeProperties: ['jcr:uuid'] }))
      .toEqual(['jcr:uuid']);
  });
});
