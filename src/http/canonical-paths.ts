// HTTP layer: canonical paths (security/canonical-path) of the raw targets seen lately. A pure function
// of the string, and popular URLs repeat; one memo per app, shared by the security hook and the path
// for cached answers (cached-hits.ts), which must see the very path the URI permissions saw.
import { canonicalPath, type CanonicalPath } from '../security/canonical-path.js';

/** Targets longer than this are canonicalized every time: bounded memory, and long targets are rare. */
const LONGEST_REMEMBERED = 512;
const REMEMBERED = 4_096;

export class CanonicalPaths {
  readonly #contextPath: string;
  #recent = new Map<string, CanonicalPath>();

  constructor(contextPath: string) {
    this.#contextPath = contextPath;
  }

  of(raw: string): CanonicalPath {
    if (raw.length > LONGEST_REMEMBERED) return canonicalPath(raw, this.#contextPath);
    let cp = this.#recent.get(raw);
    if (cp === undefined) {
      cp = canonicalPath(raw, this.#contextPath);
      if (this.#recent.size >= REMEMBERED) this.#recent = new Map();
      this.#recent.set(raw, cp);
    }
    return cp;
  }
}
