// Tests for config/pick-site.ts: the site a server uses is `fallback` of petal.yaml's sites, else of the
// light modules, else the first one found, else the built-in English site.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PetalConfig, SiteConfig } from '../../src/config/load-config.js';
import { DEFAULT_SITE, pickSite } from '../../src/config/pick-site.js';

let root: string;
beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'petal-pick-site-')); });
afterEach(() => { rmSync(root, { recursive: true, force: true }); });

function write(rel: string, text: string): void {
  const file = join(root, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** What pickSite reads of a configuration. */
const config = (sites: SiteConfig[]): PetalConfig => ({ sites, modules: [root] }) as Partial<PetalConfig> as PetalConfig;
const site = (name: string, locales: string[]): SiteConfig => ({ name, locales, defaultLocale: locales[0]! });

describe('pickSite', () => {
  it('takes the site named fallback of petal.yaml, else its first site, and then ignores the modules', () => {
    write('m/sites/fallback.yaml', 'i18n:\n  locales:\n    fr: { language: fr }\n');
    expect(pickSite(config([site('a', ['de']), site('fallback', ['it'])])).name).toBe('fallback');
    expect(pickSite(config([site('a', ['de']), site('b', ['it'])])).name).toBe('a');
  });

  it('without sites in petal.yaml, takes the fallback site of the light modules, else the first found', () => {
    write('m/sites/other.yaml', 'i18n:\n  locales:\n    de: { language: de }\n');
    expect(pickSite(config([])).locales).toEqual(['de']);
    write('m/sites/fallback.yaml', 'i18n:\n  locales:\n    fr: { language: fr }\n');
    expect(pickSite(config([]))).toMatchObject({ name: 'fallback', locales: ['fr'] });
  });

  it('without any site, is the built-in English site', () => {
    expect(pickSite(config([]))).toBe(DEFAULT_SITE);
    expect(DEFAULT_SITE).toEqual({ name: 'fallback', locales: ['en'], defaultLocale: 'en' });
  });
});
