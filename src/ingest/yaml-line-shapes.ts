// Ingest layer: what one line of a YAML export is, for the line reader (yaml-export-reader.ts): a
// sequence entry, a document marker, the end of a scalar; a mapping's keys; YAML's folding of quoted lines.
import { scanValue, type ScannedValue } from './yaml-line-scan.js';

/** Most mappings of an export hold a dozen keys: a list is searched faster than a set is hashed then. */
export class KeySet {
  /** The keys while there are at most LIST_KEYS: the first `size` of the list (kept when cleared, its store reused). */
  private readonly list: string[] = [];
  private set: Set<string> | undefined;
  size = 0;

  /** False when the key was there already. */
  add(key: string): boolean {
    if (this.set === undefined) {
      const list = this.list;
      for (let i = 0; i < this.size; i++) if (list[i] === key) return false;
      list[this.size] = key;
      if (this.size === LIST_KEYS) this.set = new Set(list.slice(0, this.size + 1));
    } else {
      if (this.set.has(key)) return false;
      this.set.add(key);
    }
    this.size++;
    return true;
  }

  /** Empty again, for the next mapping read at the same depth. */
  clear(): void {
    this.set = undefined;
    this.size = 0;
  }
}

const LIST_KEYS = 16;

/** Whether a `- value` line holds one whole scalar (nothing `yaml` must compose), scanned into `value`. */
export function simpleEntry(raw: string, s: string, indent: number, value: ScannedValue): boolean {
  if (s.charCodeAt(indent + 1) !== 32 || raw.includes('\t') || s.includes('\r')) return false;
  return scanValue(s, indent + 2, value) && value.kind === 'scalar';
}

/** `- ` or a lone `-` at `indent`: an entry of a block sequence. */
export function isSequenceEntry(s: string, indent: number): boolean {
  if (s.charCodeAt(indent) !== 45) return false;
  const next = s.charCodeAt(indent + 1);
  return Number.isNaN(next) || next === 32 || next === 9;
}

export function isDocumentMarker(s: string): boolean {
  if (!s.startsWith('---') && !s.startsWith('...')) return false;
  const next = s.charCodeAt(3);
  return Number.isNaN(next) || next === 32 || next === 9;
}

export function endsLine(s: string, at: number): boolean {
  while (s.charCodeAt(at) === 32) at++;
  return at === s.length || (s.charCodeAt(at) === 35 && s.charCodeAt(at - 1) === 32);
}

/**
 * YAML's line folding in a quoted scalar: spaces around a line break go, a single break becomes a
 * space, and each empty line between two lines becomes a line feed.
 */
export function foldQuoted(parts: readonly string[]): string {
  let text = parts[0]!.trimEnd();
  let empty = 0;
  for (let i = 1; i < parts.length; i++) {
    const isLast = i === parts.length - 1;
    const part = isLast ? parts[i]!.trimStart() : parts[i]!.trim();
    if (part === '' && !isLast) {
      empty++;
      continue;
    }
    text += (empty > 0 ? '\n'.repeat(empty) : ' ') + part;
    empty = 0;
  }
  return text;
}
