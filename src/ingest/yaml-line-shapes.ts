// Ingest layer: what one line of a YAML export is, for the line reader (yaml-export-reader.ts): a
// sequence entry, a document marker, the end of a scalar; a mapping's keys; YAML's folding of quoted lines.
import type { RawScalar } from './yaml-scalar-typing.js';
import { scanValue, type ScannedValue } from './yaml-line-scan.js';

/** Most mappings of an export hold a dozen keys: a list is searched faster than a set is hashed then. */
export class KeySet {
  private list: string[] | undefined = [];
  private set: Set<string> | undefined;
  size = 0;

  /** False when the key was there already. */
  add(key: string): boolean {
    if (this.list) {
      if (this.list.includes(key)) return false;
      this.list.push(key);
      if (this.list.length > 16) {
        this.set = new Set(this.list);
        this.list = undefined;
      }
    } else {
      if (this.set!.has(key)) return false;
      this.set!.add(key);
    }
    this.size++;
    return true;
  }

  /** Empty again, for the next mapping read at the same depth. */
  clear(): void {
    if (this.list) this.list.length = 0;
    else this.list = [];
    this.set = undefined;
    this.size = 0;
  }
}

/** The scalar of a `- value` line holding one whole scalar (nothing `yaml` must compose), or undefined; `scratch` is scanned into. */
export function simpleEntry(raw: string, s: string, indent: number, line: number, scratch: ScannedValue): RawScalar | undefined {
  if (s.charCodeAt(indent + 1) !== 32 || raw.includes('\t') || s.includes('\r')) return undefined;
  if (!scanValue(s, indent + 2, scratch) || scratch.kind !== 'scalar') return undefined;
  return { text: scratch.text, plain: scratch.plain, tag: scratch.tag, line };
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
