// Delivery layer: picks the language of a response: `lang` > `Accept-Language` (q-weights) > the site's
// default; `de_CH` falls back to `de`, then to the default; `de-CH` and `de_CH` are the same.
import type { SiteConfig } from '../config/load-config.js';

export interface LocaleChoice {
  /** The locale the content is rendered in (one of the site's locales). */
  readonly locale: string;
  readonly isDefault: boolean;
  /** `lang=all`: raw property and child names, every variant shown. */
  readonly all: boolean;
  /** Suffixes (`_de`) of the site's non-default locales, longest first, for recognising variants. */
  readonly variantSuffixes: readonly string[];
}

export function normalizeLocaleTag(tag: string): string {
  const parts = tag.trim().replace(/-/g, '_').split('_').filter(Boolean);
  if (parts.length === 0) return '';
  return [parts[0]!.toLowerCase(), ...parts.slice(1).map((p) => (p.length === 2 ? p.toUpperCase() : p))].join('_');
}

/** The closest supported locale for a tag, or undefined: exact, then shorter prefixes (`de_CH` → `de`). */
export function closestLocale(tag: string, site: SiteConfig): string | undefined {
  let t = normalizeLocaleTag(tag);
  const byLower = new Map(site.locales.map((l) => [normalizeLocaleTag(l).toLowerCase(), l]));
  while (t) {
    const hit = byLower.get(t.toLowerCase());
    if (hit !== undefined) return hit;
    const i = t.lastIndexOf('_');
    t = i > 0 ? t.slice(0, i) : '';
  }
  return undefined;
}

/** Parses `Accept-Language` into tags ordered by weight (stable for equal weights); `*` is skipped. */
export function parseAcceptLanguage(header: string): string[] {
  const items: { tag: string; q: number; i: number }[] = [];
  header.split(',').forEach((part, i) => {
    const [tagRaw, ...params] = part.trim().split(';');
    const tag = (tagRaw ?? '').trim();
    if (!tag || tag === '*') return;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) q = Number(m[1]);
    }
    if (Number.isFinite(q) && q > 0) items.push({ tag, q, i });
  });
  return items.sort((a, b) => b.q - a.q || a.i - b.i).map((x) => x.tag);
}

const suffixCache = new WeakMap<SiteConfig, readonly string[]>();

function variantSuffixes(site: SiteConfig): readonly string[] {
  let s = suffixCache.get(site);
  if (!s) {
    s = site.locales.filter((l) => l !== site.defaultLocale).map((l) => `_${l}`).sort((a, b) => b.length - a.length);
    suffixCache.set(site, s);
  }
  return s;
}

export function resolveLocale(lang: string | undefined, acceptLanguage: string | undefined, site: SiteConfig): LocaleChoice {
  const suffixes = variantSuffixes(site);
  if (lang !== undefined && lang.trim().toLowerCase() === 'all') {
    return { locale: site.defaultLocale, isDefault: true, all: true, variantSuffixes: suffixes };
  }
  let locale: string | undefined;
  if (lang !== undefined && lang.trim() !== '') locale = closestLocale(lang, site);
  else if (acceptLanguage) {
    for (const tag of parseAcceptLanguage(acceptLanguage)) {
      locale = closestLocale(tag, site);
      if (locale !== undefined) break;
    }
  }
  locale ??= site.defaultLocale;
  return { locale, isDefault: locale === site.defaultLocale, all: false, variantSuffixes: suffixes };
}

/** `title_de` → `title` when `_de` is a variant suffix; otherwise undefined. */
export function baseNameOf(name: string, suffixes: readonly string[]): string | undefined {
  for (const s of suffixes) {
    if (name.length > s.length && name.endsWith(s)) return name.slice(0, -s.length);
  }
  return undefined;
}
