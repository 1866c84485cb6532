// Config layer: finds site definitions (locales, default locale, theme) in light modules, for setups
// without `sites:` in petal.yaml: `<module>/sites/<name>.yaml`, and the site decorations
// `<module>/decorations/site/config.yaml` and `<module>/decorations/multisite/config.yaml`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseDocument } from 'yaml';
import { readYamlFileSync, yamlToJS } from './yaml-file.js';
import type { SiteConfig } from './load-config.js';
import { parseSiteCors } from './site-cors.js';

type Obj = Record<string, unknown>;

function asObj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

function readYaml(file: string): Obj | undefined {
  try {
    const doc = parseDocument(readYamlFileSync(file), { logLevel: 'silent' });
    return doc.errors.length > 0 ? undefined : asObj(yamlToJS(doc));
  } catch {
    return undefined; // a broken site file must not stop the server; endpoint loading reports YAML errors
  }
}

function localeOf(def: Obj): string | undefined {
  if (def.enabled === false) return undefined;
  if (typeof def.languageTag === 'string' && def.languageTag) return def.languageTag.replace(/-/g, '_');
  if (typeof def.language !== 'string' || !def.language) return undefined;
  return typeof def.country === 'string' && def.country ? `${def.language}_${def.country}` : def.language;
}

export function siteFromDefinition(name: string, def: Obj): SiteConfig | undefined {
  const i18n = asObj(def.i18n);
  const theme = asObj(def.theme)?.name;
  const localesObj = asObj(i18n?.locales);
  const locales: string[] = [];
  if (i18n && i18n.enabled !== false && localesObj) {
    for (const l of Object.values(localesObj)) {
      const o = asObj(l);
      const code = o && localeOf(o);
      if (code && !locales.includes(code)) locales.push(code);
    }
  }
  const cors = def.cors === undefined ? undefined : parseSiteCors(name, def.cors);
  if (locales.length === 0 && typeof theme !== 'string' && cors === undefined) return undefined;
  const fallback = typeof i18n?.fallbackLocale === 'string' ? i18n.fallbackLocale.replace(/-/g, '_') : undefined;
  const all = locales.length > 0 ? locales : ['en'];
  const defaultLocale = fallback && all.includes(fallback) ? fallback : all[0]!;
  return {
    name, locales: all, defaultLocale, ...(typeof theme === 'string' ? { theme } : {}),
    ...(cors !== undefined ? { cors: cors.rules, corsProblems: cors.problems } : {}),
  };
}

export function discoverSites(moduleRoots: readonly string[]): SiteConfig[] {
  const found = new Map<string, SiteConfig>();
  const add = (site: SiteConfig | undefined) => { if (site && !found.has(site.name)) found.set(site.name, site); };
  for (const root of moduleRoots) {
    if (!existsSync(root)) continue;
    for (const mod of readdirSync(root).sort()) {
      const dir = join(root, mod);
      if (mod.startsWith('.') || !statSync(dir).isDirectory()) continue;
      const sitesDir = join(dir, 'sites');
      if (existsSync(sitesDir)) {
        for (const f of readdirSync(sitesDir).sort()) {
          if (!f.endsWith('.yaml')) continue;
          const def = readYaml(join(sitesDir, f));
          if (def) add(siteFromDefinition(basename(f, '.yaml'), def));
        }
      }
      const single = readYaml(join(dir, 'decorations', 'site', 'config.yaml'));
      const siteDef = asObj(single?.site);
      if (siteDef) add(siteFromDefinition('fallback', siteDef));
      const multi = asObj(readYaml(join(dir, 'decorations', 'multisite', 'config.yaml'))?.sites);
      for (const [name, def] of Object.entries(multi ?? {})) {
        const o = asObj(def);
        if (o) add(siteFromDefinition(name, o));
      }
    }
  }
  return [...found.values()];
}
