// Delivery layer: the current endpoint definitions, matched by endpoint path, swapped whole on hot reload.
import type { EndpointDefinition } from './endpoint-definition.js';
import type { LoadResult } from './load-definitions.js';

export interface EndpointMatch {
  readonly definition: EndpointDefinition;
  /** What follows the endpoint path: '' or a string starting with '/'. */
  readonly rest: string;
}

interface Snapshot {
  readonly byPath: ReadonlyMap<string, EndpointDefinition>;
  readonly list: readonly EndpointDefinition[];
  /** Length of the longest endpoint path: longer prefixes of a request path need no lookup. */
  readonly maxPathLength: number;
}

const EMPTY: Snapshot = Object.freeze({ byPath: new Map(), list: Object.freeze([]), maxPathLength: 0 });

/**
 * Holds one immutable snapshot of the endpoints; a request reads `#snapshot` once, so a reload in
 * between never shows it a half-updated set.
 */
export class EndpointRegistry {
  #snapshot: Snapshot = EMPTY;
  // Per definition file, the version currently served: a broken file keeps serving its last good one.
  #lastGood: ReadonlyMap<string, EndpointDefinition> = new Map();

  constructor(initial?: LoadResult) {
    if (initial !== undefined) this.applyLoad(initial);
  }

  get size(): number {
    return this.#snapshot.list.length;
  }

  /** The endpoints, ordered by endpoint path. */
  list(): readonly EndpointDefinition[] {
    return this.#snapshot.list;
  }

  /**
   * The endpoint with the longest path that equals `pathAfterRest` or is followed in it by `/`
   * (`/delivery/pages/v1` matches `/delivery/pages/v1/travel` but never `/delivery/pages/v10`).
   */
  match(pathAfterRest: string): EndpointMatch | undefined {
    const snapshot = this.#snapshot;
    if (!pathAfterRest.startsWith('/')) return undefined;
    let end =
      pathAfterRest.length <= snapshot.maxPathLength
        ? pathAfterRest.length
        : pathAfterRest.lastIndexOf('/', snapshot.maxPathLength);
    while (end > 0) {
      const definition = snapshot.byPath.get(pathAfterRest.slice(0, end));
      if (definition !== undefined) return { definition, rest: pathAfterRest.slice(end) };
      end = pathAfterRest.lastIndexOf('/', end - 1);
    }
    return undefined;
  }

  /**
   * Takes a fresh load of all files: a file that loaded is served in its new version; a file that
   * now fails with an error keeps its last good version; a file that is gone (or disabled) is dropped.
   * Returns the files still served from an earlier version.
   */
  applyLoad(result: LoadResult): readonly string[] {
    const failed = new Set(result.problems.filter((p) => p.severity === 'error').map((p) => p.file));
    const next = new Map<string, EndpointDefinition>();
    for (const def of result.definitions) next.set(def.source, def);
    const kept: string[] = [];
    for (const [file, def] of this.#lastGood) {
      if (!next.has(file) && failed.has(file)) {
        next.set(file, def);
        kept.push(file);
      }
    }
    this.#lastGood = next;
    this.#snapshot = buildSnapshot(next);
    return kept;
  }
}

function buildSnapshot(byFile: ReadonlyMap<string, EndpointDefinition>): Snapshot {
  const files = [...byFile.keys()].sort(compareStrings);
  const byPath = new Map<string, EndpointDefinition>();
  let maxPathLength = 0;
  // A kept old version may collide with a newly loaded file; as in the loader, the first file wins.
  for (const file of files) {
    const def = byFile.get(file)!;
    if (byPath.has(def.endpointPath)) continue;
    byPath.set(def.endpointPath, def);
    maxPathLength = Math.max(maxPathLength, def.endpointPath.length);
  }
  const list = Object.freeze([...byPath.values()].sort((a, b) => compareStrings(a.endpointPath, b.endpointPath)));
  return Object.freeze({ byPath, list, maxPathLength });
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
