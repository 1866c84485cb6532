// Delivery layer (pages): personalization traits of light modules (`<module>/traits/<name>.yaml`).
// A trait says where a visitor's value comes from: a request header, a cookie or a query parameter
// named like the trait (the file name, or `name:`). Traits are matched by exact name and value.
import { join } from 'node:path';
import { isYamlMap, listModules, readModuleYaml, yamlFilesBelow, type ModuleFileProblem } from './module-yaml.js';

export type TraitSource = 'header' | 'cookie' | 'parameter';

export interface TraitDefinition {
  readonly name: string;
  readonly source: TraitSource;
  readonly file: string;
}

export interface TraitLoad {
  readonly traits: ReadonlyMap<string, TraitDefinition>;
  readonly problems: readonly ModuleFileProblem[];
}

function sourceOf(type: string): TraitSource | undefined {
  const t = type.toLowerCase();
  if (t.includes('header')) return 'header';
  if (t.includes('cookie')) return 'cookie';
  if (t.includes('parameter') || t.includes('param')) return 'parameter';
  return undefined;
}

export function loadTraits(moduleRoots: readonly string[]): TraitLoad {
  const problems: ModuleFileProblem[] = [];
  const traits = new Map<string, TraitDefinition>();
  for (const mod of listModules(moduleRoots)) {
    const dir = join(mod.dir, 'traits');
    for (const rel of yamlFilesBelow(dir)) {
      const file = join(dir, rel);
      const value = readModuleYaml(file, moduleRoots, problems);
      if (value === undefined) continue;
      if (!isYamlMap(value)) {
        problems.push({ file, reason: 'a trait definition must be a map' });
        continue;
      }
      const type = typeof value.$type === 'string' ? value.$type : typeof value.class === 'string' ? value.class : '';
      const source = sourceOf(type);
      if (source === undefined) {
        problems.push({ file, reason: `trait type "${type}" is not supported (use headerTrait, cookieTrait or requestParameterTrait); the trait is ignored` });
        continue;
      }
      const name = typeof value.name === 'string' && value.name !== '' ? value.name : rel.slice(rel.lastIndexOf('/') + 1, -'.yaml'.length);
      if (traits.has(name)) {
        problems.push({ file, reason: `trait ${name} is already defined in ${traits.get(name)!.file}; this one is ignored` });
        continue;
      }
      traits.set(name, { name, source, file });
    }
  }
  return { traits, problems };
}

/** A visitor's trait values, read from the request by the HTTP layer. */
export type TraitValues = ReadonlyMap<string, string>;
