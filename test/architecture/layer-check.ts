// Architecture test support: the import graph of src/ (read with TypeScript's own preProcessFile, so
// `import type`, re-exports and dynamic import()s count) checked against the layer table of layers.json.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface LayerTable {
  readonly layers: readonly { readonly name: string; readonly units: readonly string[] }[];
  /** Same-layer imports that are allowed, as `importer -> imported` unit names. */
  readonly sameLayer: readonly string[];
}

/** One import of one file: both as paths relative to src/ with `/` separators. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SRC = join(ROOT, 'src');

export function readLayerTable(file = join(ROOT, 'layers.json')): LayerTable {
  return JSON.parse(readFileSync(file, 'utf8')) as LayerTable;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const posix = (path: string): string => path.split(sep).join('/');

/** The relative specifiers of `text`, in source order. */
export function relativeImports(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('.'));
}

/** Every relative import of every .ts file under `srcDir`, resolved to a file (`x.js` → `x.ts`). */
export function importGraph(srcDir = SRC): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of tsFiles(srcDir)) {
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      edges.push({ from: posix(relative(srcDir, file)), to: posix(relative(srcDir, target)) });
    }
  }
  return edges;
}

/** The unit of a path relative to src/: its top-level folder, or the file itself at the top. */
export function unitOf(path: string): string {
  return path.split('/')[0]!;
}

export function layerIndex(table: LayerTable): Map<string, number> {
  return new Map(table.layers.flatMap((l, i) => l.units.map((u) => [u, i] as const)));
}

/** `from → to` for each import that reaches above its layer, into a same-layer folder the table does not allow, or outside the table. */
export function layerViolations(edges: readonly ImportEdge[], table: LayerTable): string[] {
  const level = layerIndex(table);
  const allowed = new Set(table.sameLayer);
  const found = new Set<string>();
  for (const { from, to } of edges) {
    const a = unitOf(from), b = unitOf(to);
    if (a === b) continue;
    const la = level.get(a), lb = level.get(b);
    const ok = la !== undefined && lb !== undefined && (lb < la || (lb === la && allowed.has(`${a} -> ${b}`)));
    if (!ok) found.add(`${from} → ${to}`);
  }
  return [...found].sort();
}

/** Each cycle between units (strongly connected components of more than one unit), as `a → b → … ` sorted. */
export function unitCycles(edges: readonly ImportEdge[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = unitOf(from), b = unitOf(to);
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Set());
    if (!next.has(b)) next.set(b, new Set());
    next.get(a)!.add(b);
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>();
  const cycles: string[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort().join(' ↔ '));
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles.sort();
}

/** What differs from the tolerated list: violations not in it, and entries of it that no longer occur. */
export function compareWithKnown(found: readonly string[], known: readonly string[]): { readonly added: string[]; readonly gone: string[] } {
  const f = new Set(found), k = new Set(known);
  return { added: found.filter((v) => !k.has(v)), gone: known.filter((v) => !f.has(v)) };
}
