// Config layer: the site whose locales and theme a server (and `petal types`) uses: the one named
// `fallback` of petal.yaml's `sites:` (or, without them, of the light modules), else the first, else
// a built-in English one.
import { discoverSites } from './discover-sites.js';
import type { PetalConfig, SiteConfig } from './load-config.js';

export const DEFAULT_SITE: SiteConfig = Object.freeze({ name: 'fallback', locales: ['en'], defaultLocale: 'en' });

export function pickSite(config: PetalConfig): SiteConfig {
  const sites = config.sites.length > 0 ? config.sites : discoverSites(config.modules);
  return sites.find((s) => s.name === 'fallback') ?? sites[0] ?? DEFAULT_SITE;
}
