// Ingest layer: which nodes writes changed since a bootstrap file's last import.
//
// Why the change log and not `cms:lastModified`: every write records, in its own transaction, an event
// with a sequence number that increases in commit order (store/changes.ts), and the bootstrap record
// holds the number its import committed at. "Changed since" is then "named by an event after that
// number": no clock is compared (a file may carry any lastModified, instances' clocks may differ),
// removals and moves are seen (a node that is gone has no property to read), and so are writes that
// leave no maintained property. Events that count are those of the Nodes and Properties APIs (`nodes`)
// and of imports (`import`: HTTP and CLI; a bootstrap import of another file that writes this file's
// nodes too counts as well); publishing and unpublishing change no content of the working state. An
// event too large to list its nodes (`truncated`) counts as a change of its whole workspace.
import type { ContentStore } from '../store/content-store.js';
import { CHANGES_PAGE_MAX, type ChangeEvent } from '../store/changes.js';

interface Edit {
  readonly sequence: number;
  readonly workspace: string;
  readonly truncated: boolean;
  readonly paths: readonly string[];
}

/** The paths of one workspace a write changed after some sequence number. */
export interface EditedPaths {
  /** Every node of the workspace counts as changed (a truncated event). */
  readonly all: boolean;
  readonly paths: ReadonlySet<string>;
}

export class Edits {
  readonly #edits: readonly Edit[];

  private constructor(edits: readonly Edit[]) {
    this.#edits = edits;
  }

  /** The content writes with a sequence number above `after` and at most `through`. */
  static async read(store: ContentStore, after: number, through: number): Promise<Edits> {
    const edits: Edit[] = [];
    for (let from = after; from < through;) {
      const page = await store.changes.since(from, CHANGES_PAGE_MAX);
      if (page.length === 0) break;
      for (const e of page) if (e.sequence <= through && (e.kind === 'nodes' || e.kind === 'import')) edits.push(editOf(e));
      from = page[page.length - 1]!.sequence;
    }
    return new Edits(edits);
  }

  /** What writes after `sequence` changed in `workspace`. */
  since(sequence: number, workspace: string): EditedPaths {
    const paths = new Set<string>();
    let all = false;
    for (const e of this.#edits) {
      if (e.sequence <= sequence || e.workspace !== workspace) continue;
      if (e.truncated) all = true;
      for (const p of e.paths) paths.add(p);
    }
    return { all, paths };
  }
}

function editOf(e: ChangeEvent): Edit {
  const paths: string[] = [];
  for (const n of [...e.created, ...e.changed, ...e.removed]) paths.push(n.path);
  // A moved node changed both places: where it went, and where it was (nothing is there now).
  for (const n of e.moved) paths.push(n.path, ...(n.from !== undefined ? [n.from] : []));
  return { sequence: e.sequence, workspace: e.workspace, truncated: e.truncated, paths };
}
