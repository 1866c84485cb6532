// Store layer: which (workspace, property, value kind) pairs an import has already put in the kinds
// catalogue (`prop_kinds`: which kinds a filter value is converted to), so each is written once. A bit
// per kind code by workspace and name: checking a node costs no string per property.
import { forEachIndexedKind } from './index-values.js';
import { KIND_CODES } from './query-index/column-source.js';
import type { StoredProperty } from '../model/property-type.js';

export class ListedKinds {
  readonly #bits = new Map<string, Map<string, number>>();

  /** Calls `add` with each pair of the node's properties (as index-values.ts indexes them) not listed yet. */
  add(workspace: string, properties: readonly StoredProperty[], add: (name: string, kindCode: number) => void): void {
    let seen = this.#bits.get(workspace);
    if (seen === undefined) this.#bits.set(workspace, (seen = new Map()));
    const listed = seen;
    forEachIndexedKind(properties, (name, kind) => {
      const code = KIND_CODES[kind];
      const had = listed.get(name) ?? 0;
      if ((had & (1 << code)) !== 0) return;
      listed.set(name, had | (1 << code));
      add(name, code);
    });
  }
}
