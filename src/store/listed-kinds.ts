// Store layer: which (workspace, property, value kind) pairs an import has already put in the kinds
// catalogue (`prop_kinds`: which kinds a filter value is converted to), so each is written once. A bit
// per kind code by workspace and name: checking a node costs no string per property.
import { forEachIndexedKind } from './index-values.js';
import { KIND_CODES } from './query-index/column-source.js';
import type { StoredProperty } from '../model/property-type.js';
import type { ValueKind } from '../query/ast.js';

export class ListedKinds {
  readonly #bits = new Map<string, Map<string, number>>();
  /** The workspace of the last `add` and its bits (an import adds to one workspace node after node). */
  #workspace: string | undefined;
  #listed = new Map<string, number>();
  #add: (name: string, kindCode: number) => void = () => {};
  // Bound once, not a closure per node.
  readonly #isListed = (name: string, kind: ValueKind): boolean => ((this.#listed.get(name) ?? 0) & (1 << KIND_CODES[kind])) !== 0;
  readonly #list = (name: string, kind: ValueKind): void => {
    const code = KIND_CODES[kind];
    this.#listed.set(name, (this.#listed.get(name) ?? 0) | (1 << code));
    this.#add(name, code);
  };

  /** Calls `add` with each pair of the node's properties (as index-values.ts indexes them) not listed yet. */
  add(workspace: string, properties: readonly StoredProperty[], add: (name: string, kindCode: number) => void): void {
    if (workspace !== this.#workspace) {
      let seen = this.#bits.get(workspace);
      if (seen === undefined) this.#bits.set(workspace, (seen = new Map()));
      this.#workspace = workspace;
      this.#listed = seen;
    }
    this.#add = add;
    forEachIndexedKind(properties, this.#list, this.#isListed);
  }
}
