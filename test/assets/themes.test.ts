import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadThemes, parseTheme, ThemeRegistry } from '../../src/assets/themes.js';
import { assetLink, defaultRenditionLink, renditionLink, themedRenditionLink } from '../../src/assets/links.js';
import { ASSET_MODULES } from './asset-xml.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function modules(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'petal-themes-'));
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

describe('themes', () => {
  it('reads the travel-spa theme: quoted numeric names, width and height, class ignored', () => {
    const load = loadThemes([ASSET_MODULES]);
    expect(load.problems).toEqual([]);
    expect(load.themes.map((t) => t.name)).toEqual(['travel-demo-theme']);
    const t = load.themes[0]!;
    expect([...t.variations.values()]).toEqual([
      { name: '960', width: 960 },
      { name: '480', width: 480 },
      { name: '960x720', width: 960, height: 720 },
      { name: '480x360', width: 480, height: 360 },
    ]);
    expect(t.hasVariation('480')).toBe(true);
    expect(t.hasVariation('original')).toBe(false);
  });

  it('unquoted numeric keys, height-only variations, string sizes; bad variations are problems', () => {
    const { theme, problems } = parseTheme('t', 't.yaml', [
      'imaging:',
      '  variations:',
      '    300: {width: 300}',
      '    tall: {height: "200"}',
      '    none: {class: x}',
      '    neg: {width: -5}',
      '    huge: {width: 100000}',
      '    frac: {width: 10.5}',
      '    list: [1, 2]',
    ].join('\n'));
    expect([...theme.variations.values()]).toEqual([{ name: '300', width: 300 }, { name: 'tall', height: 200 }]);
    expect(problems.map((p) => p.reason.split(' ')[1])).toEqual(['"none"', '"neg":', '"huge":', '"frac":', '"list"']);
  });

  it('broken YAML and a theme without imaging give no variations, never an exception', () => {
    expect(parseTheme('t', 't.yaml', 'imaging: [').problems[0]!.reason).toMatch(/invalid YAML/);
    expect(parseTheme('t', 't.yaml', 'cssFiles: {}').theme.variations.size).toBe(0);
  });

  it('the first module defining a theme name wins', () => {
    const root = modules({
      'a-lm/themes/shared.yaml': 'imaging: {variations: {small: {width: 10}}}',
      'b-lm/themes/shared.yaml': 'imaging: {variations: {small: {width: 20}}}',
    });
    const r = ThemeRegistry.load([root]);
    expect(r.variation('shared', 'small')).toEqual({ name: 'small', width: 10 });
    expect(r.problems).toHaveLength(1);
  });

  it("the site's theme: configured, else the light modules' site definition, else the only theme", () => {
    const root = modules({
      'a-lm/themes/one.yaml': 'imaging: {variations: {s: {width: 10}}}',
      'a-lm/themes/two.yaml': 'imaging: {variations: {m: {width: 20}}}',
      'a-lm/sites/corp.yaml': 'theme: {name: two}\ni18n: {locales: {en: {language: en}}}',
    });
    const r = ThemeRegistry.load([root]);
    expect(r.themeFor({ name: 'x', theme: 'one' })?.name).toBe('one');
    expect(r.themeFor({ name: 'corp' })?.name).toBe('two');
    expect(r.themeFor({ name: 'other' })).toBeUndefined(); // two themes, none named
    expect(r.themeFor({ name: 'x', theme: 'missing' })).toBeUndefined();

    const single = ThemeRegistry.load([ASSET_MODULES]);
    expect(single.themeFor({ name: 'fallback' })?.name).toBe('travel-demo-theme');
    expect(single.variationNames('travel-demo-theme')).toEqual(['960', '480', '960x720', '480x360']);
    expect(single.variationNames('nope')).toEqual([]);
  });

  it('reload replaces the themes', () => {
    const root = modules({ 'a-lm/themes/one.yaml': 'imaging: {variations: {s: {width: 10}}}' });
    const r = ThemeRegistry.load([root]);
    writeFileSync(join(root, 'a-lm/themes/one.yaml'), 'imaging: {variations: {s: {width: 30}}}');
    r.reload([root]);
    expect(r.variation('one', 's')?.width).toBe(30);
  });
});

describe('links', () => {
  const id = '795449d2-6c16-402e-9e8a-bbb101fe22bb';
  it('original and rendition links, with context path and encoding', () => {
    expect(assetLink('', id, 'shark.JPG')).toBe(`/dam/jcr:${id}/shark.JPG`);
    expect(assetLink('/ctx', `jcr:${id}`, 'a b#?.jpg')).toBe(`/ctx/dam/jcr:${id}/a%20b%23%3F.jpg`);
    expect(renditionLink('/ctx', 'travel-demo-theme', '960x720', id, 'é.jpg'))
      .toBe(`/ctx/.imaging/travel-demo-theme/960x720/dam/jcr:${id}/%C3%A9.jpg`);
  });
  it("the original's forms: a theme's rendition by asset path, an undefined one by extension", () => {
    expect(themedRenditionLink('/ctx', 'travel-demo-theme', '960x720', '/tours/a b.jpg', 'a b.jpg'))
      .toBe('/ctx/.imaging/mte/travel-demo-theme/960x720/dam/tours/a%20b.jpg/jcr:content/a%20b.jpg');
    expect(defaultRenditionLink('', '/tours/x', 'jpg')).toBe('/.imaging/default/dam/tours/x/jcr:content.jpg');
    expect(defaultRenditionLink('', '/tours/x', undefined)).toBe('/.imaging/default/dam/tours/x/jcr:content');
  });
});
