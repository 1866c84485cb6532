// Delivery layer: discovers endpoint definition files in light modules and loads them, collecting problems per file.
import { readdir, stat } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { LineCounter, isNode, parseDocument, type Document } from 'yaml';
import { isYmlExtension } from './derive-endpoint-path.js';
import { readYamlFile, yamlToJS } from '../config/yaml-file.js';
import {
  isDisabledDefinition,
  parseEndpointDefinition,
  type DefinitionPath,
  type EndpointDefinition,
} from './endpoint-definition.js';

export interface DefinitionProblem {
  /** Absolute path of the file (or folder) at fault. */
  readonly file: string;
  /** 1-based line, when the problem has one. */
  readonly line?: number;
  readonly reason: string;
  readonly severity: 'error' | 'warning';
}

export interface LoadResult {
  readonly definitions: EndpointDefinition[];
  readonly problems: DefinitionProblem[];
}

export interface FileLoadResult {
  /** Absent when the file is broken or disabled. */
  readonly definition?: EndpointDefinition;
  readonly problems: DefinitionProblem[];
}

const ENDPOINTS_FOLDER = 'restEndpoints';
const DECORATIONS_FOLDER = 'decorations';
// Guards against symlink loops; real light modules are a few levels deep.
const MAX_DEPTH = 32;

/**
 * Loads every `<module>/restEndpoints/**\/*.yaml` of every module in the given light-modules folders.
 * Files are processed in path order, so when two define the same endpoint path the first one wins.
 */
export async function loadDefinitions(moduleRoots: string[]): Promise<LoadResult> {
  const problems: DefinitionProblem[] = [];
  const candidates: { file: string; root: string }[] = [];
  for (const root of [...new Set(moduleRoots.map((r) => path.resolve(r)))]) {
    const modules = await listEntries(root);
    if (modules instanceof Error) {
      problems.push({ file: root, reason: `light-modules folder cannot be read: ${modules.message}`, severity: 'error' });
      continue;
    }
    for (const mod of modules.filter((e) => e.isDirectory && !ignoredName(e.name))) {
      const moduleDir = path.join(root, mod.name);
      for (const file of await findFiles(path.join(moduleDir, ENDPOINTS_FOLDER))) candidates.push({ file, root });
      for (const file of await findDecoratedEndpoints(path.join(moduleDir, DECORATIONS_FOLDER))) {
        const decorated = path.relative(path.join(moduleDir, DECORATIONS_FOLDER), file).split(path.sep)[0];
        problems.push({
          file,
          reason: `decorations of endpoint definitions are not supported yet; this decoration of module "${decorated}" is ignored`,
          severity: 'warning',
        });
      }
    }
  }

  candidates.sort((a, b) => compareStrings(a.file, b.file));
  const loaded = await Promise.all(candidates.map((c) => loadDefinitionFile(c.file, c.root)));
  const definitions: EndpointDefinition[] = [];
  const owners = new Map<string, string>();
  for (const result of loaded) {
    problems.push(...result.problems);
    const def = result.definition;
    if (def === undefined) continue;
    const owner = owners.get(def.endpointPath);
    if (owner !== undefined) {
      problems.push({
        file: def.source,
        reason: `endpoint path ${def.endpointPath} is already defined by ${owner}; this file is not loaded`,
        severity: 'error',
      });
      continue;
    }
    owners.set(def.endpointPath, def.source);
    definitions.push(def);
  }
  return { definitions, problems };
}

/** Loads one definition file; `moduleRoot` is the light-modules folder that holds its module. */
export async function loadDefinitionFile(file: string, moduleRoot: string): Promise<FileLoadResult> {
  const source = path.resolve(file);
  const error = (reason: string, line?: number): FileLoadResult => ({
    problems: [{ file: source, line, reason, severity: 'error' }],
  });

  const segments = path.relative(path.resolve(moduleRoot), source).split(path.sep);
  if (segments.length < 3 || segments[1] !== ENDPOINTS_FOLDER || segments[0] === '..') {
    return error(`not an endpoint definition: expected <module>/${ENDPOINTS_FOLDER}/**/*.yaml below ${moduleRoot}`);
  }
  if (isYmlExtension(source)) {
    return error('use the .yaml extension: .yml files are not loaded as endpoint definitions');
  }
  const module = segments[0];
  const relativeFile = segments.slice(2).join('/');

  let text: string;
  try {
    text = await readYamlFile(source);
  } catch (err) {
    return error(`cannot read the file: ${errorMessage(err)}`);
  }

  const lineCounter = new LineCounter();
  // YAML 1.1, as the original CMS reads light modules with a YAML 1.1 parser (`yes`/`no` are booleans).
  const doc = parseDocument(text, { version: '1.1', prettyErrors: false, lineCounter });
  const lineOf = (offset: number | undefined): number | undefined =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;

  const firstError = doc.errors[0];
  if (firstError !== undefined) {
    const more = doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more)` : '';
    return error(`invalid YAML: ${firstError.message}${more}`, lineOf(firstError.pos[0]));
  }
  // Unresolved custom tags (`!include`, `!content`, …) are warnings: the value is read as a plain one.
  const problems: DefinitionProblem[] = doc.warnings.map((w) => ({
    file: source,
    line: lineOf(w.pos[0]),
    reason: w.code === 'TAG_RESOLVE_FAILED' ? `${w.message}; unsupported tag, the value is read as plain YAML` : w.message,
    severity: 'warning',
  }));

  let raw: unknown;
  try {
    raw = yamlToJS(doc);
  } catch (err) {
    return error(`invalid YAML: ${errorMessage(err)}`);
  }
  if (raw === null || raw === undefined) {
    return error('the file is empty; an endpoint definition needs at least $type (or class)');
  }
  if (isDisabledDefinition(raw)) return { problems };

  const parsed = parseEndpointDefinition(raw, { source, module, relativeFile });
  if (!parsed.ok) {
    return {
      problems: [
        ...problems,
        { file: source, line: lineOf(offsetOf(doc, parsed.path ?? [])), reason: parsed.reason, severity: 'error' },
      ],
    };
  }
  for (const reason of parsed.warnings) problems.push({ file: source, reason, severity: 'warning' });
  return { definition: parsed.definition, problems };
}

/** Start offset of the value at `at`, or of its nearest present ancestor (a missing key points at its map). */
function offsetOf(doc: Document, at: DefinitionPath): number | undefined {
  for (let n = at.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(at.slice(0, n), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return undefined;
}

interface Entry {
  readonly name: string;
  readonly isDirectory: boolean;
  readonly isFile: boolean;
}

async function listEntries(dir: string): Promise<Entry[] | Error> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
  return Promise.all(
    dirents.map(async (d): Promise<Entry> => {
      if (!d.isSymbolicLink()) return { name: d.name, isDirectory: d.isDirectory(), isFile: d.isFile() };
      // Light modules are often symlinked into place; a dangling link is simply skipped.
      const target = await stat(path.join(dir, d.name)).catch(() => undefined);
      return { name: d.name, isDirectory: target?.isDirectory() ?? false, isFile: target?.isFile() ?? false };
    }),
  );
}

/** `.yaml` and `.yml` files below `dir` (the latter so that they can be rejected with a message). */
async function findFiles(dir: string, depth = 0): Promise<string[]> {
  const entries = await listEntries(dir);
  if (entries instanceof Error || depth > MAX_DEPTH) return [];
  const out: string[] = [];
  for (const e of entries) {
    if (ignoredName(e.name)) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory) out.push(...(await findFiles(full, depth + 1)));
    else if (e.isFile && (e.name.endsWith('.yaml') || isYmlExtension(e.name))) out.push(full);
  }
  return out;
}

/** Files of `decorations/<module>/restEndpoints/**`: decorations of other modules' endpoints. */
async function findDecoratedEndpoints(decorationsDir: string): Promise<string[]> {
  const decorated = await listEntries(decorationsDir);
  if (decorated instanceof Error) return [];
  const out: string[] = [];
  for (const d of decorated.filter((e) => e.isDirectory && !ignoredName(e.name))) {
    out.push(...(await findFiles(path.join(decorationsDir, d.name, ENDPOINTS_FOLDER))));
  }
  return out.sort(compareStrings);
}

function ignoredName(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

// Code-point order, independent of the locale, so "first wins" is the same on every machine.
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
