// Tests for config/discover-sites.ts: site definitions (locales, default locale, theme) found in light
// modules: `sites/<name>.yaml`, `decorations/site/config.yaml`, `decorations/multisite/config.yaml`.
// The fixtures in test/fixtures/sites/ are copies of real light-module files (travel SPA demo and
// Daily Planet), kept in their module layout.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSites, siteFromDefinition } from '../../src/config/discover-sites.js';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'sites');
const SPA_SITE = join(FIXTURES, 'spa-lm', 'decorations', 'site', 'config.yaml');
const SPA_MULTISITE = join(FIXTURES, 'spa-lm', 'decorations', 'multisite', 'config.yaml');
const DAILY_PLANET = join(FIXTURES, 'daily-planet-lm', 'sites', 'fallback.yaml');

/** The sites without their CORS rules (tested in test/http/site-cors.test.ts). */
const discover = (roots: string[]) => discoverSites(roots).map(({ cors: _cors, corsProblems: _problems, ...site }) => site);

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'petal-sites-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Writes `text` to `<root>/<rel>`, creating folders. */
function write(rel: string, text: string, base = root): string {
  const file = join(base, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function fixture(file: string): string {
  return readFileSync(file, 'utf8');
}

describe('discoverSites on the real light-module files', () => {
  it('reads the site decoration of the travel SPA module', () => {
    write('spa-lm/decorations/site/config.yaml', fixture(SPA_SITE));
    expect(discover([root])).toEqual([
      { name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en', theme: 'travel-demo-theme' },
    ]);
  });

  it('reads the multisite decoration of the travel SPA module', () => {
    write('spa-lm/decorations/multisite/config.yaml', fixture(SPA_MULTISITE));
    expect(discover([root])).toEqual([
      { name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en', theme: 'travel-demo-theme' },
    ]);
  });

  it('reads an IETF site definition (languageTag) of Daily Planet', () => {
    write('daily-planet-lm/sites/fallback.yaml', fixture(DAILY_PLANET));
    expect(discover([root])).toEqual([{ name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en' }]);
  });

  it('reads the fixture folder as a light-modules root, first module (by name) first', () => {
    // daily-planet-lm sorts before spa-lm, so its `fallback` (no theme) wins
    expect(discover([FIXTURES])).toEqual([{ name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en' }]);
  });

  it('reads a whole module copied with its layout', () => {
    cpSync(join(FIXTURES, 'spa-lm'), join(root, 'spa-lm'), { recursive: true });
    const sites = discover([root]);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ name: 'fallback', theme: 'travel-demo-theme' });
  });
});

describe('discoverSites: locales', () => {
  it('takes the default locale from fallbackLocale', () => {
    write('m/decorations/site/config.yaml', fixture(SPA_SITE).replace('fallbackLocale: en', 'fallbackLocale: de'));
    expect(discover([root])).toEqual([
      { name: 'fallback', locales: ['en', 'de'], defaultLocale: 'de', theme: 'travel-demo-theme' },
    ]);
  });

  it('uses the first locale when fallbackLocale is missing or not a locale of the site', () => {
    write('m/sites/none.yaml', 'i18n:\n  locales:\n    de: { language: de }\n    en: { language: en }\n');
    write('m/sites/other.yaml', 'i18n:\n  fallbackLocale: fr\n  locales:\n    de: { language: de }\n    en: { language: en }\n');
    expect(discover([root])).toEqual([
      { name: 'none', locales: ['de', 'en'], defaultLocale: 'de' },
      { name: 'other', locales: ['de', 'en'], defaultLocale: 'de' },
    ]);
  });

  it('joins language and country into de_CH', () => {
    const text = fixture(SPA_SITE).replace(
      "      de:\n        country: ''\n        enabled: true\n        language: de",
      "      de:\n        country: ''\n        enabled: true\n        language: de\n      de_CH:\n        country: CH\n        enabled: true\n        language: de",
    );
    expect(text).toContain('country: CH');
    write('m/decorations/site/config.yaml', text);
    expect(discover([root])[0]!.locales).toEqual(['en', 'de', 'de_CH']);
  });

  it('turns an IETF languageTag de-CH into de_CH, also for fallbackLocale', () => {
    const text = fixture(DAILY_PLANET)
      .replace('fallbackLocale: en', 'fallbackLocale: de-CH')
      .replace('languageTag: de\n', 'languageTag: de-CH\n');
    expect(text).toContain('languageTag: de-CH');
    write('m/sites/fallback.yaml', text);
    expect(discover([root])).toEqual([{ name: 'fallback', locales: ['en', 'de_CH'], defaultLocale: 'de_CH' }]);
  });

  it('prefers languageTag over language and country', () => {
    write('m/sites/s.yaml', 'i18n:\n  locales:\n    x: { languageTag: fr-CA, language: de, country: CH }\n');
    expect(discover([root])).toEqual([{ name: 's', locales: ['fr_CA'], defaultLocale: 'fr_CA' }]);
  });

  it('skips disabled locales', () => {
    const text = fixture(SPA_SITE).replace(
      "      de:\n        country: ''\n        enabled: true",
      "      de:\n        country: ''\n        enabled: false",
    );
    expect(text).toContain('enabled: false');
    write('m/decorations/site/config.yaml', text);
    expect(discover([root])).toEqual([
      { name: 'fallback', locales: ['en'], defaultLocale: 'en', theme: 'travel-demo-theme' },
    ]);
  });

  it('does not make a disabled locale the default', () => {
    write('m/sites/s.yaml', 'i18n:\n  fallbackLocale: de\n  locales:\n    en: { language: en }\n    de: { language: de, enabled: false }\n');
    expect(discover([root])).toEqual([{ name: 's', locales: ['en'], defaultLocale: 'en' }]);
  });

  it('ignores the locales when i18n is disabled, keeping a themed site with en', () => {
    write('m/decorations/site/config.yaml', fixture(SPA_SITE).replace('    enabled: true\n    fallbackLocale', '    enabled: false\n    fallbackLocale'));
    expect(discover([root])).toEqual([
      { name: 'fallback', locales: ['en'], defaultLocale: 'en', theme: 'travel-demo-theme' },
    ]);
  });

  it('lists a locale once even when two entries name it', () => {
    write('m/sites/s.yaml', 'i18n:\n  locales:\n    en: { language: en }\n    english: { languageTag: en }\n    de: { language: de }\n');
    expect(discover([root])[0]!.locales).toEqual(['en', 'de']);
  });

  it('skips locale entries without a language', () => {
    write('m/sites/s.yaml', "i18n:\n  locales:\n    en: { language: en }\n    blank: { language: '' }\n    none: { country: CH }\n    scalar: de\n");
    expect(discover([root])[0]!.locales).toEqual(['en']);
  });
});

describe('discoverSites: files and modules', () => {
  it('does not throw on broken YAML', () => {
    write('m/sites/fallback.yaml', 'i18n:\n  locales:\n    en: { language: en\n   de: [\n');
    write('m/decorations/site/config.yaml', "site:\n  theme:\n    name: x\n   i18n: :\n  - broken\n");
    write('m/decorations/multisite/config.yaml', 'sites: [\n');
    expect(() => discover([root])).not.toThrow();
  });

  it('ignores a file that is not YAML at all', () => {
    write('a-broken/sites/fallback.yaml', '\t{ "i18n": \u0000 }\n');
    write('b-good/sites/fallback.yaml', fixture(DAILY_PLANET));
    expect(discover([root])).toEqual([{ name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en' }]);
  });

  // src bug: readYaml calls yaml's parse() with `logLevel: 'silent'`, which in yaml 2 does not throw
  // but DROPS the errors and returns the partly recovered document, so a broken file is used (here it
  // yields `fallback` with locales [en] and hides the good definition). Remove `.fails` once fixed.
  it('ignores a broken YAML file and keeps the good ones', () => {
    write('a-broken/sites/fallback.yaml', 'i18n:\n  locales:\n    en: { language: en\n   de: [\n');
    write('a-broken/decorations/site/config.yaml', "site:\n  theme:\n    name: x\n   i18n: :\n  - broken\n");
    write('b-good/sites/fallback.yaml', fixture(DAILY_PLANET));
    expect(discover([root])).toEqual([{ name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en' }]);
  });

  it('ignores files that are not YAML mappings and site files without locales or theme', () => {
    write('m/sites/list.yaml', '- a\n- b\n');
    write('m/sites/empty.yaml', '');
    write('m/sites/nothing.yaml', 'templates: {}\n');
    write('m/sites/readme.txt', 'i18n:\n  locales:\n    en: { language: en }\n');
    write('m/decorations/multisite/config.yaml', 'sites:\n  scalar: 1\n  bare: {}\n');
    expect(discover([root])).toEqual([]);
  });

  it('names sites from sites/<name>.yaml and from the multisite keys', () => {
    write('m/sites/travel.yaml', 'theme:\n  name: t1\n');
    write('m/decorations/multisite/config.yaml', [
      'sites:',
      '  shop:',
      '    i18n:',
      '      fallbackLocale: fr',
      '      locales:',
      '        fr: { language: fr }',
      '        it: { language: it }',
      '  travel:',
      '    theme: { name: ignored }',
      '',
    ].join('\n'));
    expect(discover([root])).toEqual([
      { name: 'travel', locales: ['en'], defaultLocale: 'en', theme: 't1' },
      { name: 'shop', locales: ['fr', 'it'], defaultLocale: 'fr' },
    ]);
  });

  it('keeps the first definition of a name: sites/ before decorations, earlier roots first', () => {
    const other = mkdtempSync(join(tmpdir(), 'petal-sites-2-'));
    try {
      write('m/decorations/site/config.yaml', fixture(SPA_SITE));
      write('m/sites/fallback.yaml', 'i18n:\n  locales:\n    it: { language: it }\n');
      write('z/sites/fallback.yaml', 'i18n:\n  locales:\n    fr: { language: fr }\n', other);
      expect(discover([other, root])).toEqual([{ name: 'fallback', locales: ['fr'], defaultLocale: 'fr' }]);
      expect(discover([root, other])).toEqual([{ name: 'fallback', locales: ['it'], defaultLocale: 'it' }]);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('skips missing roots, hidden folders and plain files in a root', () => {
    write('.hidden/sites/fallback.yaml', 'i18n:\n  locales:\n    it: { language: it }\n');
    write('loose.yaml', 'i18n:\n  locales:\n    it: { language: it }\n');
    write('m/sites/fallback.yaml', fixture(DAILY_PLANET));
    expect(discover([join(root, 'does-not-exist'), root])).toEqual([
      { name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en' },
    ]);
    expect(discover([])).toEqual([]);
  });
});

describe('siteFromDefinition', () => {
  it('returns undefined without locales and theme', () => {
    expect(siteFromDefinition('s', {})).toBeUndefined();
    expect(siteFromDefinition('s', { i18n: { locales: {} } })).toBeUndefined();
  });

  it('builds a site from a definition object', () => {
    expect(siteFromDefinition('s', {
      theme: { name: 'th' },
      i18n: { fallbackLocale: 'de_CH', locales: { a: { language: 'de', country: 'CH' }, b: { language: 'en' } } },
    })).toEqual({ name: 's', locales: ['de_CH', 'en'], defaultLocale: 'de_CH', theme: 'th' });
  });
});
