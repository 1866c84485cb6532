// Ingest layer: turns what a reader reports (draft-sink.ts) into a streamed document's entries, holding
// as few nodes as it can. A node can be written only with all its properties, and YAML may write a
// property after a child node, so each node is held until it closes, with its subtree, unless the
// nodes held pass HELD_NODES: then every open node is let go (it and the subtrees it holds become
// entries) and what follows streams. A property coming for a node let go is refused: exports write a
// node's properties before its child nodes, and a file that does not after this many nodes is not one.
import type { NodeDraft, NodeEntry } from '../repository/import-document.js';
import type { PropertyType, ScalarValue } from '../model/property-type.js';
import { addProperty, newDraft } from './node-draft.js';
import { ImportError } from './import-error.js';
import type { DraftSink } from './draft-sink.js';

/**
 * Nodes held in memory before the open ones are let go. Exports write a node's properties before its
 * child nodes (a JCR system view by its schema, `sv:node (sv:property*, sv:node*)`; Magnolia's YAML
 * exports likewise), so holding more only serves files written otherwise, while held drafts cost the
 * import memory: at 1,000 (a folder of products) they outlived two young-generation collections and
 * filled the old generation (peak RSS about 45 MB higher per import, more in a server).
 */
export const HELD_NODES = 100;

interface Frame {
  readonly draft: NodeDraft;
  readonly depth: number;
  /** Already an entry: its completed children become entries as they close. */
  released: boolean;
}

export class DraftStream implements DraftSink {
  readonly #stack: Frame[] = [];
  #out: NodeEntry[] = [];
  /** Nodes held: open and unreleased, or in a held subtree. */
  #held = 0;
  #nodes = 0;

  constructor(private readonly file: string, private readonly heldNodes = HELD_NODES) {}

  /** Nodes reported so far. */
  get nodes(): number {
    return this.#nodes;
  }

  openNode(name: string, line: number | undefined): void {
    if (this.#held >= this.heldNodes) this.#releaseOpen();
    this.#stack.push({ draft: newDraft(name, line), depth: this.#stack.length, released: false });
    this.#held++;
    this.#nodes++;
  }

  property(name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[], line: number | undefined): void {
    const top = this.#stack.at(-1);
    if (top === undefined) throw new ImportError(this.file, line, `property "${name}" outside a node`);
    if (top.released) {
      throw new ImportError(this.file, line,
        `property "${name}" of node "${top.draft.name}" comes after more than ${this.heldNodes} nodes below it: write a node's properties before its child nodes`);
    }
    addProperty(top.draft, name, type, value);
  }

  closeNode(): void {
    const frame = this.#stack.pop();
    if (frame === undefined) throw new ImportError(this.file, undefined, 'a node closed that was not open');
    if (frame.released) return;
    const parent = this.#stack.at(-1);
    if (parent === undefined || parent.released) this.#emit(frame.draft, frame.depth);
    else parent.draft.children.push(frame.draft);
  }

  /** The entries ready to be written, in document order; each is returned once. */
  take(): NodeEntry[] {
    const out = this.#out;
    this.#out = [];
    return out;
  }

  /** Every open node becomes an entry, outermost first, each followed by the subtrees it held. */
  #releaseOpen(): void {
    for (const frame of this.#stack) {
      if (frame.released) continue;
      const held = frame.draft.children;
      frame.draft.children = [];
      this.#out.push({ depth: frame.depth, draft: frame.draft });
      this.#held--;
      for (const child of held) this.#emit(child, frame.depth + 1);
      frame.released = true;
    }
  }

  /** A completed subtree as entries, in document order. */
  #emit(draft: NodeDraft, depth: number): void {
    const children = draft.children;
    draft.children = [];
    this.#out.push({ depth, draft });
    this.#held--;
    for (const child of children) this.#emit(child, depth + 1);
  }
}
