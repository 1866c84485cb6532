// Ingest layer: what an export reader (YAML, JCR XML) tells as it reads, so that one reader serves
// both a whole document (DraftTree: bootstrap, tests) and a streamed import (DraftStream).
import type { NodeDraft } from '../repository/import-document.js';
import type { PropertyType, ScalarValue } from '../model/property-type.js';
import { addProperty, newDraft } from './node-draft.js';
import { ImportError } from './import-error.js';

/**
 * A reader calls these in document order: a node opens (its name checked by the reader), gets the
 * properties read for it (as `addProperty` takes them), holds the nodes opened before it closes.
 */
export interface DraftSink {
  openNode(name: string, line: number | undefined): void;
  /** A property of the innermost open node; `line` locates an error. */
  property(name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[], line: number | undefined): void;
  closeNode(): void;
}

/** Builds the whole trees of a document in memory. */
export class DraftTree implements DraftSink {
  readonly roots: NodeDraft[] = [];
  readonly #open: NodeDraft[] = [];

  constructor(private readonly file: string) {}

  openNode(name: string, line: number | undefined): void {
    this.#open.push(newDraft(name, line));
  }

  property(name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[], line: number | undefined): void {
    const draft = this.#open.at(-1);
    if (draft === undefined) throw new ImportError(this.file, line, `property "${name}" outside a node`);
    addProperty(draft, name, type, value);
  }

  closeNode(): void {
    const draft = this.#open.pop();
    if (draft === undefined) throw new ImportError(this.file, undefined, 'a node closed that was not open');
    const parent = this.#open.at(-1);
    if (parent === undefined) this.roots.push(draft);
    else parent.children.push(draft);
  }
}
