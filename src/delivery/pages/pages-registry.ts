// Delivery layer (pages): the loaded templates and traits; `reload` swaps both at once when the light
// modules change, so a request sees one consistent set.
import type { ModuleFileProblem } from './module-yaml.js';
import { loadTemplates, type TemplateDefinition } from './templates.js';
import { loadTraits, type TraitDefinition } from './traits.js';

export class PagesRegistry {
  #templates: ReadonlyMap<string, TemplateDefinition> = new Map();
  #traits: readonly TraitDefinition[] = [];
  #varyHeaders = '';

  static load(moduleRoots: readonly string[]): { registry: PagesRegistry; problems: readonly ModuleFileProblem[] } {
    const registry = new PagesRegistry();
    return { registry, problems: registry.reload(moduleRoots) };
  }

  static empty(): PagesRegistry {
    return new PagesRegistry();
  }

  reload(moduleRoots: readonly string[]): readonly ModuleFileProblem[] {
    const t = loadTemplates(moduleRoots);
    const tr = loadTraits(moduleRoots);
    this.#templates = t.templates;
    this.#traits = [...tr.traits.values()];
    const headers = this.#traits.filter((x) => x.source === 'header').map((x) => x.name);
    if (this.#traits.some((x) => x.source === 'cookie')) headers.push('Cookie');
    this.#varyHeaders = headers.join(', ');
    return [...t.problems, ...tr.problems];
  }

  template(id: string): TemplateDefinition | undefined {
    return this.#templates.get(id);
  }

  get templateCount(): number {
    return this.#templates.size;
  }

  get traits(): readonly TraitDefinition[] {
    return this.#traits;
  }

  /** Request headers a personalized answer depends on (for `Vary`); empty when no trait is defined. */
  get varyHeaders(): string {
    return this.#varyHeaders;
  }
}
