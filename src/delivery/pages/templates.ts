// Delivery layer (pages): template definitions of light modules (`<module>/templates/**.yaml`, id
// `<module>:<path>`, e.g. `spa-lm:pages/basic`) with includes and decorations applied. Only what
// delivery acts on is kept: per area, its inheritance and autogeneration settings.
import { join } from 'node:path';
import { toCanonicalName } from '../../model/names.js';
import {
  decorate, isYamlMap, listModules, loadDecorations, moduleId, readModuleYaml, yamlFilesBelow,
  type ModuleFileProblem, type YamlMap, type YamlValue,
} from './module-yaml.js';

export type InheritedComponents = 'all' | 'filtered' | 'none';

export interface AreaInheritance {
  readonly components: InheritedComponents;
  /** Canonical node types of the inherited nodes (default components and resources). */
  readonly nodeTypes: readonly string[];
}

/** What the page editor's comments say of a template or an area (template-annotations.ts). */
export interface EditorInfo {
  readonly title?: string;
  readonly dialog?: string;
  readonly description?: string;
}

export interface AreaDefinition extends EditorInfo {
  readonly name: string;
  /** `type` of the area (`list`, `single`, `noComponent`); list when absent. */
  readonly type?: string;
  /** Template ids of `availableComponents`, in their order. */
  readonly availableComponents: readonly string[];
  readonly maxComponents?: number;
  readonly optional: boolean;
  readonly createAreaNode: boolean;
  /** Present when `inheritance.enabled` is true. */
  readonly inheritance?: AreaInheritance;
  /** `autoGeneration.content`: component name → its definition (node type, template, properties). */
  readonly autoGeneration?: YamlMap;
}

export interface TemplateDefinition extends EditorInfo {
  readonly id: string;
  readonly file: string;
  readonly areas: ReadonlyMap<string, AreaDefinition>;
}

export interface TemplateLoad {
  readonly templates: ReadonlyMap<string, TemplateDefinition>;
  readonly problems: readonly ModuleFileProblem[];
}

const DEFAULT_INHERITED_TYPES = ['cms:component', 'cms:resource'];

export function loadTemplates(moduleRoots: readonly string[]): TemplateLoad {
  const problems: ModuleFileProblem[] = [];
  const raw = new Map<string, { file: string; value: YamlValue }>();
  for (const mod of listModules(moduleRoots)) {
    const dir = join(mod.dir, 'templates');
    for (const rel of yamlFilesBelow(dir)) {
      const file = join(dir, rel);
      const id = moduleId(mod.name, dir, file);
      if (raw.has(id)) {
        problems.push({ file, reason: `template ${id} is already defined in ${raw.get(id)!.file}; this one is ignored` });
        continue;
      }
      const value = readModuleYaml(file, moduleRoots, problems);
      if (value !== undefined) raw.set(id, { file, value });
    }
  }
  for (const d of loadDecorations(moduleRoots, 'templates', problems)) {
    const t = raw.get(d.target);
    if (t === undefined) {
      problems.push({ file: d.file, reason: `decorates template ${d.target}, which no light module defines` });
      continue;
    }
    raw.set(d.target, { file: t.file, value: decorate(t.value, d) });
  }
  const templates = new Map<string, TemplateDefinition>();
  for (const [id, { file, value }] of raw) {
    templates.set(id, { id, file, ...editorInfo(value), areas: parseAreas(value, id, file, problems) });
  }
  return { templates, problems };
}

function parseAreas(value: YamlValue, id: string, file: string, problems: ModuleFileProblem[]): Map<string, AreaDefinition> {
  const areas = new Map<string, AreaDefinition>();
  if (!isYamlMap(value) || !isYamlMap(value.areas)) return areas;
  for (const [name, def] of Object.entries(value.areas)) {
    if (!isYamlMap(def)) continue;
    const available = isYamlMap(def.availableComponents) ? Object.entries(def.availableComponents) : [];
    const max = Number(def.maxComponents);
    const area: { -readonly [K in keyof AreaDefinition]: AreaDefinition[K] } = {
      name, ...editorInfo(def),
      ...(typeof def.type === 'string' ? { type: def.type } : {}),
      availableComponents: available.map(([key, c]) => (isYamlMap(c) && typeof c.id === 'string' ? c.id : key)),
      ...(def.maxComponents !== undefined && Number.isInteger(max) && max >= 0 ? { maxComponents: max } : {}),
      optional: def.optional === true || def.optional === 'true',
      createAreaNode: def.createAreaNode !== false && def.createAreaNode !== 'false',
    };
    const inh = def.inheritance;
    if (isYamlMap(inh) && (inh.enabled === true || inh.enabled === 'true')) {
      const components = inh.components ?? 'filtered';
      if (components !== 'all' && components !== 'filtered' && components !== 'none') {
        problems.push({ file, reason: `${id}: areas.${name}.inheritance.components must be all, filtered or none` });
      } else {
        const types = Array.isArray(inh.nodeTypes) ? inh.nodeTypes.filter((t): t is string => typeof t === 'string') : isYamlMap(inh.nodeTypes) ? Object.values(inh.nodeTypes).filter((t): t is string => typeof t === 'string') : [];
        area.inheritance = { components, nodeTypes: types.length > 0 ? types.map(toCanonicalName) : DEFAULT_INHERITED_TYPES };
      }
    }
    const gen = def.autoGeneration;
    if (isYamlMap(gen) && isYamlMap(gen.content)) area.autoGeneration = gen.content;
    areas.set(name, area);
  }
  return areas;
}

function editorInfo(value: YamlValue): EditorInfo {
  if (!isYamlMap(value)) return {};
  const text = (v: YamlValue | undefined) => (typeof v === 'string' && v !== '' ? v : undefined);
  const title = text(value.title);
  const dialog = text(value.dialog);
  const description = text(value.description);
  return {
    ...(title !== undefined ? { title } : {}),
    ...(dialog !== undefined ? { dialog } : {}),
    ...(description !== undefined ? { description } : {}),
  };
}
