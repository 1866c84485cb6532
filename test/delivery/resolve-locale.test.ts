// Tests for delivery/resolve-locale.ts: `lang` > Accept-Language (q-weights) > the site's default;
// de-CH/de_CH equivalence and fallback to the language; `lang=all`; variant suffixes; baseNameOf.
import { describe, expect, it } from 'vitest';
import type { SiteConfig } from '../../src/config/load-config.js';
import {
  baseNameOf,
  closestLocale,
  normalizeLocaleTag,
  parseAcceptLanguage,
  resolveLocale,
} from '../../src/delivery/resolve-locale.js';

const SITE: SiteConfig = { name: 'fallback', locales: ['en', 'de', 'fr'], defaultLocale: 'en' };
const SWISS: SiteConfig = { name: 'swiss', locales: ['de', 'de_CH', 'fr_CH', 'en'], defaultLocale: 'de' };

describe('resolveLocale', () => {
  it('uses the default without lang and Accept-Language', () => {
    expect(resolveLocale(undefined, undefined, SITE)).toEqual({
      locale: 'en', isDefault: true, all: false, variantSuffixes: ['_de', '_fr'],
    });
  });

  it('takes lang', () => {
    const c = resolveLocale('de', undefined, SITE);
    expect(c.locale).toBe('de');
    expect(c.isDefault).toBe(false);
    expect(c.all).toBe(false);
  });

  it('lets lang beat Accept-Language', () => {
    expect(resolveLocale('fr', 'de', SITE).locale).toBe('fr');
    expect(resolveLocale('en', 'de;q=1, fr;q=0.9', SITE)).toMatchObject({ locale: 'en', isDefault: true });
  });

  it('uses Accept-Language when lang is empty', () => {
    expect(resolveLocale('', 'de', SITE).locale).toBe('de');
    expect(resolveLocale('  ', 'fr', SITE).locale).toBe('fr');
  });

  it('uses the first supported language of Accept-Language, by q-weight', () => {
    expect(resolveLocale(undefined, 'fr;q=0.5, de;q=0.9', SITE).locale).toBe('de');
    expect(resolveLocale(undefined, 'it, ja;q=0.9, fr;q=0.8, de;q=0.7', SITE).locale).toBe('fr');
    expect(resolveLocale(undefined, 'de-DE,de;q=0.9,en;q=0.8', SITE).locale).toBe('de');
  });

  it('falls back to the default when nothing matches', () => {
    expect(resolveLocale('it', undefined, SITE)).toMatchObject({ locale: 'en', isDefault: true, all: false });
    expect(resolveLocale(undefined, 'it, ja;q=0.5', SITE)).toMatchObject({ locale: 'en', isDefault: true });
    expect(resolveLocale(undefined, '', SITE).locale).toBe('en');
    expect(resolveLocale(undefined, '*', SITE).locale).toBe('en');
    expect(resolveLocale(undefined, ';;;,,,', SITE).locale).toBe('en');
  });

  it('treats de-CH and de_CH alike and falls back from de_CH to de', () => {
    expect(resolveLocale('de-CH', undefined, SITE).locale).toBe('de');
    expect(resolveLocale('de_CH', undefined, SITE).locale).toBe('de');
    expect(resolveLocale(undefined, 'de-CH', SITE).locale).toBe('de');
    expect(resolveLocale(undefined, 'de_ch', SITE).locale).toBe('de');
    expect(resolveLocale('de-CH', undefined, SWISS)).toMatchObject({ locale: 'de_CH', isDefault: false });
    expect(resolveLocale('de-ch', undefined, SWISS).locale).toBe('de_CH');
    expect(resolveLocale('DE_ch', undefined, SWISS).locale).toBe('de_CH');
    expect(resolveLocale('de-AT', undefined, SWISS)).toMatchObject({ locale: 'de', isDefault: true });
    expect(resolveLocale('fr-FR', undefined, SWISS).locale).toBe('de'); // fr alone is not a locale of SWISS
    expect(resolveLocale(undefined, 'fr-CH, de;q=0.1', SWISS).locale).toBe('fr_CH');
  });

  it('handles lang=all (any case): default locale, all variants', () => {
    for (const lang of ['all', 'ALL', ' All ']) {
      expect(resolveLocale(lang, 'de', SITE)).toEqual({
        locale: 'en', isDefault: true, all: true, variantSuffixes: ['_de', '_fr'],
      });
    }
  });

  it('skips * in Accept-Language', () => {
    expect(resolveLocale(undefined, '*, fr;q=0.5', SITE).locale).toBe('fr');
    expect(resolveLocale(undefined, '*;q=1, de;q=0.2', SITE).locale).toBe('de');
  });

  it('lists the variant suffixes of non-default locales, longest first', () => {
    expect(resolveLocale(undefined, undefined, SWISS).variantSuffixes).toEqual(['_de_CH', '_fr_CH', '_en']);
    const german: SiteConfig = { name: 's', locales: ['en', 'de'], defaultLocale: 'de' };
    expect(resolveLocale(undefined, undefined, german).variantSuffixes).toEqual(['_en']);
    const single: SiteConfig = { name: 's', locales: ['en'], defaultLocale: 'en' };
    expect(resolveLocale(undefined, undefined, single).variantSuffixes).toEqual([]);
  });

  it('returns the same suffix list for every call on one site', () => {
    const a = resolveLocale(undefined, undefined, SITE).variantSuffixes;
    const b = resolveLocale('de', 'fr', SITE).variantSuffixes;
    expect(b).toBe(a);
  });
});

describe('parseAcceptLanguage', () => {
  it('orders by q, keeping the header order for equal weights', () => {
    expect(parseAcceptLanguage('da, en-GB;q=0.8, en;q=0.7')).toEqual(['da', 'en-GB', 'en']);
    expect(parseAcceptLanguage('en;q=0.7, en-GB;q=0.8, da')).toEqual(['da', 'en-GB', 'en']);
    expect(parseAcceptLanguage('a;q=0.5, b;q=0.5, c, d')).toEqual(['c', 'd', 'a', 'b']);
  });

  it('tolerates spaces around q', () => {
    expect(parseAcceptLanguage('fr ; q = 0.3 ,de;q=0.6')).toEqual(['de', 'fr']);
  });

  it('drops q=0 and *', () => {
    expect(parseAcceptLanguage('de;q=0, fr, *;q=0.1')).toEqual(['fr']);
    expect(parseAcceptLanguage('*')).toEqual([]);
    expect(parseAcceptLanguage('')).toEqual([]);
  });
});

describe('normalizeLocaleTag and closestLocale', () => {
  it('normalizes tags', () => {
    expect(normalizeLocaleTag('de-CH')).toBe('de_CH');
    expect(normalizeLocaleTag('DE-ch')).toBe('de_CH');
    expect(normalizeLocaleTag(' zh-Hant-TW ')).toBe('zh_Hant_TW');
    expect(normalizeLocaleTag('en')).toBe('en');
    expect(normalizeLocaleTag('')).toBe('');
    expect(normalizeLocaleTag('-_')).toBe('');
  });

  it('finds the closest locale or nothing', () => {
    expect(closestLocale('de-CH', SWISS)).toBe('de_CH');
    expect(closestLocale('de_LI', SWISS)).toBe('de');
    expect(closestLocale('it', SWISS)).toBeUndefined();
    expect(closestLocale('', SWISS)).toBeUndefined();
  });
});

describe('baseNameOf', () => {
  const suffixes = resolveLocale(undefined, undefined, SWISS).variantSuffixes; // _de_CH, _fr_CH, _en

  it('strips a variant suffix', () => {
    expect(baseNameOf('title_en', suffixes)).toBe('title');
    expect(baseNameOf('title_fr_CH', suffixes)).toBe('title');
  });

  it('strips the longest suffix first', () => {
    expect(baseNameOf('title_de_CH', suffixes)).toBe('title');
    expect(baseNameOf('title_de_CH', ['_CH', '_de_CH'])).toBe('title_de');
    expect(baseNameOf('title_de_CH', ['_de_CH', '_CH'])).toBe('title');
  });

  it('returns undefined for names without a variant suffix', () => {
    expect(baseNameOf('title', suffixes)).toBeUndefined();
    expect(baseNameOf('title_de', suffixes)).toBeUndefined(); // de is the default of SWISS
    expect(baseNameOf('title_it', suffixes)).toBeUndefined();
    expect(baseNameOf('title', [])).toBeUndefined();
  });

  it('does not reduce a name to nothing', () => {
    expect(baseNameOf('_en', suffixes)).toBeUndefined();
    expect(baseNameOf('x_en', suffixes)).toBe('x');
  });
});
