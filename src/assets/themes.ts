// Assets layer: themes of light modules (`<module>/themes/<name>.yaml`) and their image variations
// (`imaging.variations.<name>: {width?, height?}`), and which theme a site uses. Pure config: no HTTP,
// no store. The `class` keys of the original CMS are ignored (every variation is a resize that keeps
// the aspect ratio inside the width × height box).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isMap, isNode, isScalar, parseDocument } from 'yaml';
import type { SiteConfig } from '../config/load-config.js';
import { discoverSites } from '../config/discover-sites.js';
import { MAX_YAML_ALIASES, readYamlFileSync } from '../config/yaml-file.js';

/** One image variation: the box the rendition must fit in. At least one side is set. */
export interface Variation {
  readonly name: string;
  readonly width?: number;
  readonly height?: number;
}

export interface Theme {
  readonly name: string;
  /** The YAML file it was read from. */
  readonly file: string;
  /** Variations by name, in the order of the file. */
  readonly variations: ReadonlyMap<string, Variation>;
  hasVariation(name: string): boolean;
}

function makeTheme(name: string, file: string, variations: ReadonlyMap<string, Variation>): Theme {
  return { name, file, variations, hasVariation: (v) => variations.has(v) };
}

export interface ThemeProblem {
  readonly file: string;
  readonly reason: string;
}

export interface ThemeLoad {
  readonly themes: Theme[];
  readonly problems: ThemeProblem[];
  /** Theme names of the sites found in the same light modules (`site → theme`), for `themeFor`. */
  readonly siteThemes: ReadonlyMap<string, string>;
}

/** Largest side a variation may ask for; bigger values are refused when the theme is loaded. */
export const MAX_VARIATION_SIDE = 16_384;

type Obj = Record<string, unknown>;

function asObj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

/** A side length: a positive integer, or a string of one (`"960"`); undefined when absent. */
function side(v: unknown): number | undefined | 'invalid' {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n > 0 && n <= MAX_VARIATION_SIDE ? n : 'invalid';
}

/** Parses one theme file's text; variations that are not usable become problems, never errors. */
export function parseTheme(name: string, file: string, text: string): { theme: Theme; problems: ThemeProblem[] } {
  const problems: ThemeProblem[] = [];
  const variations = new Map<string, Variation>();
  const doc = parseDocument(text, { logLevel: 'silent' });
  if (doc.errors.length > 0) {
    problems.push({ file, reason: `invalid YAML: ${doc.errors[0]!.message}` });
    return { theme: makeTheme(name, file, variations), problems };
  }
  // The YAML map itself, not toJS(): a JS object would put integer-like names ("480") first.
  const raw = doc.getIn(['imaging', 'variations'], true);
  let entries: [unknown, unknown][];
  try {
    entries = isMap(raw) ? raw.items.map((pair) => [isScalar(pair.key) ? pair.key.value : pair.key, isNode(pair.value) ? pair.value.toJS(doc, { maxAliasCount: MAX_YAML_ALIASES }) : pair.value]) : [];
  } catch (err) {
    // The only throw here is the alias bound (a ReferenceError of the yaml library).
    problems.push({ file, reason: `invalid YAML: aliases expand too much (more than ${MAX_YAML_ALIASES} alias uses): ${err instanceof Error ? err.message : String(err)}` });
    return { theme: makeTheme(name, file, variations), problems };
  }
  for (const [key, value] of entries) {
    const def = asObj(value);
    const vName = String(key);
    if (!def) {
      problems.push({ file, reason: `variation ${JSON.stringify(vName)} is not a map` });
      continue;
    }
    const width = side(def.width);
    const height = side(def.height);
    if (width === 'invalid' || height === 'invalid') {
      problems.push({ file, reason: `variation ${JSON.stringify(vName)}: width and height must be integers from 1 to ${MAX_VARIATION_SIDE}` });
      continue;
    }
    if (width === undefined && height === undefined) {
      problems.push({ file, reason: `variation ${JSON.stringify(vName)} has neither width nor height` });
      continue;
    }
    variations.set(vName, { name: vName, ...(width !== undefined ? { width } : {}), ...(height !== undefined ? { height } : {}) });
  }
  return { theme: makeTheme(name, file, variations), problems };
}

/** Reads every `<module>/themes/<name>.yaml` under the light-module roots; the first of a name wins. */
export function loadThemes(moduleRoots: readonly string[]): ThemeLoad {
  const themes = new Map<string, Theme>();
  const problems: ThemeProblem[] = [];
  for (const root of moduleRoots) {
    if (!existsSync(root)) continue;
    for (const mod of readdirSync(root).sort()) {
      const dir = join(root, mod, 'themes');
      if (mod.startsWith('.') || !existsSync(dir) || !statSync(dir).isDirectory()) continue;
      for (const f of readdirSync(dir).sort()) {
        if (!f.endsWith('.yaml') && !f.endsWith('.yml')) continue;
        const name = basename(basename(f, '.yaml'), '.yml');
        const file = join(dir, f);
        if (themes.has(name)) {
          problems.push({ file, reason: `theme ${name} is already defined in ${themes.get(name)!.file}; this one is ignored` });
          continue;
        }
        let text: string;
        try {
          text = readYamlFileSync(file);
        } catch (err) {
          problems.push({ file, reason: `unreadable: ${err instanceof Error ? err.message : String(err)}` });
          continue;
        }
        const parsed = parseTheme(name, file, text);
        themes.set(name, parsed.theme);
        problems.push(...parsed.problems);
      }
    }
  }
  const siteThemes = new Map<string, string>();
  for (const s of discoverSites(moduleRoots)) if (s.theme !== undefined) siteThemes.set(s.name, s.theme);
  return { themes: [...themes.values()], problems, siteThemes };
}

/** The loaded themes; `reload` swaps them atomically (light modules are watched). */
export class ThemeRegistry {
  #themes = new Map<string, Theme>();
  #siteThemes: ReadonlyMap<string, string> = new Map();
  #problems: readonly ThemeProblem[] = [];

  constructor(themes: Iterable<Theme> = [], siteThemes: ReadonlyMap<string, string> = new Map()) {
    this.#set(themes, siteThemes, []);
  }

  static load(moduleRoots: readonly string[]): ThemeRegistry {
    const r = new ThemeRegistry();
    r.reload(moduleRoots);
    return r;
  }

  /** Re-reads the themes of these light-module roots; returns the problems found. */
  reload(moduleRoots: readonly string[]): readonly ThemeProblem[] {
    const load = loadThemes(moduleRoots);
    this.#set(load.themes, load.siteThemes, load.problems);
    return load.problems;
  }

  #set(themes: Iterable<Theme>, siteThemes: ReadonlyMap<string, string>, problems: readonly ThemeProblem[]): void {
    const m = new Map<string, Theme>();
    for (const t of themes) if (!m.has(t.name)) m.set(t.name, t);
    this.#themes = m;
    this.#siteThemes = siteThemes;
    this.#problems = problems;
  }

  get problems(): readonly ThemeProblem[] {
    return this.#problems;
  }

  names(): string[] {
    return [...this.#themes.keys()];
  }

  theme(name: string): Theme | undefined {
    return this.#themes.get(name);
  }

  /** The variation `name` of theme `theme`, or undefined when either is unknown. */
  variation(theme: string, name: string): Variation | undefined {
    return this.#themes.get(theme)?.variations.get(name);
  }

  /** The variation names of a theme, in file order ([] for an unknown theme). */
  variationNames(theme: string): string[] {
    const t = this.#themes.get(theme);
    return t ? [...t.variations.keys()] : [];
  }

  /**
   * The theme a site uses: its configured `theme` (petal.yaml `sites.<name>.theme`, or the discovered
   * site definition's), else the theme the light modules' site definition of that name names, else the
   * only theme present. Undefined when none applies or the named theme is not loaded.
   */
  themeFor(site: Pick<SiteConfig, 'name' | 'theme'>): Theme | undefined {
    const named = site.theme ?? this.#siteThemes.get(site.name);
    if (named !== undefined) return this.#themes.get(named);
    if (this.#themes.size === 1) return this.#themes.values().next().value;
    return undefined;
  }
}
