// Delivery layer (pages): reads light-module YAML the way the original CMS does for templates and
// traits: `!include:/<module>/<path>` merges another file of the light modules under the including
// map (the including file wins), and decorations (`<module>/decorations/<target>/...`) are merged
// over the decorated file later. Synchronous: called at start and on a reload, never per request.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { parseDocument, isMap, isScalar, isSeq, type Node as YamlNode } from 'yaml';
import { readYamlFileSync } from '../../config/yaml-file.js';

export type YamlMap = { [key: string]: YamlValue };
export type YamlValue = string | number | boolean | null | YamlValue[] | YamlMap;

export interface ModuleFileProblem {
  readonly file: string;
  readonly reason: string;
}

const INCLUDE_TAG = '!include:';
// Includes of includes are followed this far; a cycle is reported, not followed.
const MAX_INCLUDE_DEPTH = 8;
// Files one read may include in all: ten includes per file, eight deep, would otherwise read 10^8 files.
const MAX_INCLUDES = 256;

/** What is left of one top-level read's include allowance, shared by every include below it. */
interface IncludeBudget {
  left: number;
}

export function isYamlMap(v: unknown): v is YamlMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge: maps merge key by key, anything else in `over` replaces what `base` holds. */
export function mergeYaml(base: YamlValue | undefined, over: YamlValue): YamlValue {
  if (!isYamlMap(base) || !isYamlMap(over)) return over;
  const out: YamlMap = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergeYaml(base[k], v);
  return out;
}

/** The light-module folders (`<root>/<module>`) of the given roots, in name order. */
export function listModules(moduleRoots: readonly string[]): { name: string; dir: string }[] {
  const out: { name: string; dir: string }[] = [];
  for (const root of moduleRoots) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root).sort()) {
      const dir = join(root, name);
      if (name.startsWith('.') || name === 'node_modules' || !isDir(dir)) continue;
      out.push({ name, dir });
    }
  }
  return out;
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Every `.yaml` file below `dir` (recursively), as paths relative to it with `/`, sorted. */
export function yamlFilesBelow(dir: string, depth = 0): string[] {
  if (depth > 16 || !isDir(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const full = join(dir, name);
    if (isDir(full)) out.push(...yamlFilesBelow(full, depth + 1).map((f) => `${name}/${f}`));
    else if (name.endsWith('.yaml')) out.push(name);
  }
  return out;
}

/** Reads a light-module YAML file, resolving `!include:` tags against the module roots. */
export function readModuleYaml(
  file: string, moduleRoots: readonly string[], problems: ModuleFileProblem[], seen: readonly string[] = [],
  budget: IncludeBudget = { left: MAX_INCLUDES },
): YamlValue | undefined {
  let text: string;
  try {
    text = readYamlFileSync(file);
  } catch (err) {
    problems.push({ file, reason: `unreadable: ${err instanceof Error ? err.message : String(err)}` });
    return undefined;
  }
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    problems.push({ file, reason: `not valid YAML (line ${e.linePos?.[0].line ?? '?'}): ${e.message.split('\n')[0]}` });
    return undefined;
  }
  if (doc.contents === null) return null;
  return convert(doc.contents as YamlNode, file, moduleRoots, problems, [...seen, file], budget);
}

function convert(
  node: YamlNode, file: string, roots: readonly string[], problems: ModuleFileProblem[], seen: readonly string[], budget: IncludeBudget,
): YamlValue {
  let own: YamlValue;
  if (isMap(node)) {
    const map: YamlMap = {};
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (key === '__proto__') { // as a plain property it would replace the map's prototype
        problems.push({ file, reason: 'the key __proto__ is not allowed' });
        continue;
      }
      map[key] = pair.value === null || pair.value === undefined ? null : convert(pair.value as YamlNode, file, roots, problems, seen, budget);
    }
    own = map;
  } else if (isSeq(node)) {
    own = node.items.map((i) => (i === null ? null : convert(i as YamlNode, file, roots, problems, seen, budget)));
  } else if (isScalar(node)) {
    const v = node.value;
    own = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : v === null || v === undefined ? null : String(v);
  } else {
    own = null;
  }
  const tag = node.tag;
  if (tag === undefined || !tag.startsWith(INCLUDE_TAG)) return own;
  const included = includeFile(tag.slice(INCLUDE_TAG.length), file, roots, problems, seen, budget);
  if (included === undefined) return own;
  // `!include` on an empty node is the included content; on a map, the map overrides it.
  return isYamlMap(own) ? mergeYaml(included, own) : own === null || own === '' ? included : own;
}

function includeFile(
  target: string, from: string, roots: readonly string[], problems: ModuleFileProblem[], seen: readonly string[], budget: IncludeBudget,
): YamlValue | undefined {
  const rel = target.replace(/^\/+/, '');
  // `/<module>/<path>` names a file of the light modules, never one beside or above them.
  const inside = (root: string, f: string) => {
    const r = relative(root, f);
    return r !== '' && !r.startsWith('..') && !isAbsolute(r);
  };
  const file = roots.map((r) => [r, join(r, rel)] as const).find(([r, f]) => inside(r, f) && existsSync(f))?.[1];
  if (file === undefined) {
    problems.push({ file: from, reason: `!include:${target} names no file of the light modules` });
    return undefined;
  }
  if (seen.includes(file) || seen.length > MAX_INCLUDE_DEPTH) {
    problems.push({ file: from, reason: `!include:${target} is circular or nested too deep` });
    return undefined;
  }
  if (budget.left <= 0) {
    problems.push({ file: from, reason: `!include:${target} not read: more than ${MAX_INCLUDES} files included in all` });
    return undefined;
  }
  budget.left--;
  return readModuleYaml(file, roots, problems, seen, budget);
}

/**
 * Decorations of `kind` files (`templates`, ...) of other modules: `<module>/decorations/<target>/<kind>/<p>.yaml`
 * decorates `<target>:<p>` as a whole; `<p>.<a>.<b>.yaml` decorates the value at `a.b` of it.
 */
export interface Decoration {
  readonly target: string;
  readonly at: readonly string[];
  readonly value: YamlValue;
  readonly file: string;
}

export function loadDecorations(moduleRoots: readonly string[], kind: string, problems: ModuleFileProblem[]): Decoration[] {
  const out: Decoration[] = [];
  for (const mod of listModules(moduleRoots)) {
    const decorations = join(mod.dir, 'decorations');
    if (!isDir(decorations)) continue;
    for (const target of readdirSync(decorations).sort()) {
      const base = join(decorations, target, kind);
      for (const rel of yamlFilesBelow(base)) {
        const file = join(base, rel);
        const value = readModuleYaml(file, moduleRoots, problems);
        if (value === undefined) continue;
        const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/') + 1) : '';
        const parts = rel.slice(dir.length, -'.yaml'.length).split('.');
        out.push({ target: `${target}:${dir}${parts[0]}`, at: parts.slice(1), value, file });
      }
    }
  }
  return out;
}

/** Applies a decoration to a loaded definition. */
export function decorate(definition: YamlValue, d: Decoration): YamlValue {
  let over: YamlValue = d.value;
  for (let i = d.at.length - 1; i >= 0; i--) over = { [d.at[i]!]: over };
  return mergeYaml(definition, over);
}

/** `spa-lm/templates/pages/basic.yaml` below a root → `spa-lm:pages/basic` (`kind` = `templates`). */
export function moduleId(moduleName: string, kindDir: string, file: string): string {
  return `${moduleName}:${relative(kindDir, file).split(sep).join('/').replace(/\.yaml$/, '')}`;
}
