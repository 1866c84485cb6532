// Ingest layer: reads the lines of a YAML export that Magnolia writes (`'key': value` in block maps:
// quoted or plain scalars, one-line flow sequences, tags). Anything else answers undefined, and the
// reader hands that item to the `yaml` package instead, so this scanner only ever accepts what
// `yaml` reads the same way.

/** An item of a one-line flow sequence as written. */
export interface ScannedScalar {
  readonly text: string;
  readonly plain: boolean;
  readonly tag: string | undefined;
}

const NO_ITEMS: readonly ScannedScalar[] = [];

/**
 * The value after a key, as scanValue read it. One record is refilled for each line (not an object per
 * line: the reader's small objects per line were most of an import's garbage).
 * - `none`: `'key':` with nothing after it: a nested mapping, a block sequence, or null, depending on the next lines;
 * - `scalar`: `text`, `plain`, `tag`;
 * - `sequence`: a one-line flow sequence, `items` with the sequence's `tag`;
 * - `emptyMap`: `{}`;
 * - `openQuote`: a single-quoted scalar that goes on on the next lines: `text` is what this line holds of it, `tag` its tag.
 */
export class ScannedValue {
  kind: 'none' | 'scalar' | 'sequence' | 'emptyMap' | 'openQuote' = 'none';
  text = '';
  plain = true;
  tag: string | undefined = undefined;
  items: readonly ScannedScalar[] = NO_ITEMS;

  set(kind: ScannedValue['kind'], text: string, plain: boolean, tag: string | undefined): true {
    this.kind = kind;
    this.text = text;
    this.plain = plain;
    this.tag = tag;
    this.items = NO_ITEMS;
    return true;
  }

  copy(from: ScannedValue): void {
    this.set(from.kind, from.text, from.plain, from.tag);
    this.items = from.items;
  }
}

/** The key scanKey read and where its value starts (refilled, as ScannedValue). */
export class ScannedKey {
  key = '';
  next = 0;
  /**
   * Quoted keys read before, by a hash of their length and end characters: an export repeats the same
   * dozen keys node after node, and a key found here is compared in place, not cut out of its line.
   * Besides a string less per line, every property of a name is then one string, whose hash maps and
   * sets downstream compute once.
   */
  readonly known: (string | undefined)[] = new Array<string | undefined>(KNOWN_KEYS).fill(undefined);
}

const KNOWN_KEYS = 256;

/** The single-quoted key between `from` and `to` of `line`, the one read before when it is the same. */
function quotedKey(line: string, from: number, to: number, out: ScannedKey): string {
  const length = to - from;
  if (length === 0) return '';
  const slot = (length * 31 + line.charCodeAt(from) * 7 + line.charCodeAt(to - 1)) & (KNOWN_KEYS - 1);
  const known = out.known[slot];
  if (known !== undefined && known.length === length && line.startsWith(known, from)) return known;
  const key = unquoteSingle(line, from, to);
  // A key with a quote in it is not its text as written: not kept (startsWith would not find it). A
  // key kept is copied: a slice of the line would keep the whole chunk it was read from.
  if (key.length === length) out.known[slot] = (' ' + key).slice(1);
  return key;
}

const YAML_TAG = 'tag:yaml.org,2002:';
/** Longest implicit key the YAML spec (and `yaml`) allows. */
const MAX_KEY_CHARS = 1024;
const TAG = /^!(!?)([A-Za-z0-9_.:/-]+) +/y;
const SPACE = 32;
const HASH = 35;

/** The key of a block-map line starting at `at` (its indentation), and where its value starts, into `out`; or false. */
export function scanKey(line: string, at: number, out: ScannedKey): boolean {
  const c = line.charCodeAt(at);
  let key: string | undefined;
  let end: number;
  if (c === 39 /* ' */) {
    end = closingSingleQuote(line, at + 1);
    if (end < 0) return false;
    key = quotedKey(line, at + 1, end, out);
    end++;
  } else if (c === 34 /* " */) {
    end = closingDoubleQuote(line, at + 1);
    if (end < 0) return false;
    key = unquoteDouble(line.slice(at + 1, end));
    end++;
  } else {
    if (!plainStart(line, at)) return false;
    end = line.indexOf(': ', at);
    if (end < 0) {
      if (line.charCodeAt(line.length - 1) !== 58 /* : */) return false;
      end = line.length - 1;
    }
    key = line.slice(at, end).trimEnd();
    if (key.includes(' #') || key.includes('\t')) return false;
  }
  if (key === undefined || end - at > MAX_KEY_CHARS || line.charCodeAt(end) !== 58) return false;
  const after = end + 1;
  if (after < line.length && line.charCodeAt(after) !== SPACE) return false;
  out.key = key;
  out.next = after;
  return true;
}

/** The value after a key (from `from`, spaces before it allowed) into `out`, or false when it is not a simple one. */
export function scanValue(line: string, from: number, out: ScannedValue): boolean {
  let at = skipSpaces(line, from);
  if (at === line.length || line.charCodeAt(at) === HASH) return out.set('none', '', true, undefined);
  let tag: string | undefined;
  if (line.charCodeAt(at) === 33 /* ! */) {
    TAG.lastIndex = at;
    const m = TAG.exec(line);
    if (!m) return false;
    tag = m[1] ? YAML_TAG + m[2] : `!${m[2]}`;
    at = TAG.lastIndex;
    if (at === line.length || line.charCodeAt(at) === HASH) return false;
  }
  const c = line.charCodeAt(at);
  if (c === 91 /* [ */) {
    const items = scanFlowSequence(line, at + 1);
    if (items === undefined) return false;
    out.set('sequence', '', true, tag);
    out.items = items;
    return true;
  }
  if (c === 123 /* { */) {
    const close = skipSpaces(line, at + 1);
    if (tag !== undefined || line.charCodeAt(close) !== 125 /* } */ || !endsLine(line, close + 1)) return false;
    return out.set('emptyMap', '', true, undefined);
  }
  if (c === 39 /* ' */) {
    const end = closingSingleQuote(line, at + 1);
    if (end < 0) return out.set('openQuote', line.slice(at + 1), false, tag);
    if (!endsLine(line, end + 1)) return false;
    return out.set('scalar', unquoteSingle(line, at + 1, end), false, tag);
  }
  if (c === 34 /* " */) {
    const end = closingDoubleQuote(line, at + 1);
    if (end < 0 || !endsLine(line, end + 1)) return false;
    const text = unquoteDouble(line.slice(at + 1, end));
    return text !== undefined && out.set('scalar', text, false, tag);
  }
  if (!plainStart(line, at)) return false;
  let stop = line.indexOf(' #', at);
  if (stop < 0) stop = line.length;
  const text = line.slice(at, stop).trimEnd();
  if (text.includes(': ') || text.charCodeAt(text.length - 1) === 58 || text.includes('\t')) return false;
  return out.set('scalar', text, true, tag);
}

/** The items of `[a, 'b', !long 3]` on one line; undefined for anything else (nesting, an empty item, a trailing comma). */
function scanFlowSequence(line: string, from: number): ScannedScalar[] | undefined {
  const items: ScannedScalar[] = [];
  let at = skipSpaces(line, from);
  if (line.charCodeAt(at) === 93 /* ] */) return endsLine(line, at + 1) ? items : undefined;
  for (;;) {
    let itemTag: string | undefined;
    if (line.charCodeAt(at) === 33 /* ! */) {
      TAG.lastIndex = at;
      const m = TAG.exec(line);
      if (!m) return undefined;
      itemTag = m[1] ? YAML_TAG + m[2] : `!${m[2]}`;
      at = TAG.lastIndex;
    }
    const c = line.charCodeAt(at);
    let end: number;
    if (c === 39) {
      end = closingSingleQuote(line, at + 1);
      if (end < 0) return undefined;
      items.push({ text: unquoteSingle(line, at + 1, end), plain: false, tag: itemTag });
      end++;
    } else if (c === 34) {
      end = closingDoubleQuote(line, at + 1);
      if (end < 0) return undefined;
      const text = unquoteDouble(line.slice(at + 1, end));
      if (text === undefined) return undefined;
      items.push({ text, plain: false, tag: itemTag });
      end++;
    } else {
      if (!plainStart(line, at)) return undefined;
      end = at;
      for (; end < line.length; end++) {
        const d = line.charCodeAt(end);
        if (d === 44 /* , */ || d === 93 /* ] */) break;
        // Nesting, a comment, tabs or a `:` that could start a pair: left to `yaml`.
        if (d === 91 || d === 123 || d === 125 || d === 9 || (d === HASH && line.charCodeAt(end - 1) === SPACE)) return undefined;
        if (d === 58) {
          const e = line.charCodeAt(end + 1);
          if (e === SPACE || e === 44 || e === 93 || Number.isNaN(e)) return undefined;
        }
      }
      items.push({ text: line.slice(at, end).trimEnd(), plain: true, tag: itemTag });
    }
    at = skipSpaces(line, end);
    const sep = line.charCodeAt(at);
    if (sep === 93) return endsLine(line, at + 1) ? items : undefined;
    if (sep !== 44) return undefined;
    at = skipSpaces(line, at + 1);
    const next = line.charCodeAt(at);
    if (next === 93 || next === 44 || Number.isNaN(next)) return undefined;
  }
}

/** Where a single-quoted scalar that opened before `from` closes on this line (`''` is a quote), or -1. */
export function closingSingleQuote(line: string, from: number): number {
  let at = line.indexOf("'", from);
  while (at >= 0 && line.charCodeAt(at + 1) === 39) at = line.indexOf("'", at + 2);
  return at;
}

function closingDoubleQuote(line: string, from: number): number {
  for (let at = from; at < line.length; at++) {
    const c = line.charCodeAt(at);
    if (c === 92 /* \ */) at++;
    else if (c === 34) return at;
  }
  return -1;
}

export function unquoteSingle(line: string, from: number, to: number): string {
  const text = line.slice(from, to);
  return text.includes("''") ? text.replaceAll("''", "'") : text;
}

/** JSON's escapes are YAML's too; YAML's others (`\x41`, `\e`, …) and raw control characters go to `yaml`. */
const NOT_JSON = /\\(?:[^"\\/bfnrtu]|u(?![0-9a-fA-F]{4}))|[\u0000-\u001f]/;

function unquoteDouble(text: string): string | undefined {
  if (!text.includes('\\') && !/[\u0000-\u001f]/.test(text)) return text;
  if (NOT_JSON.test(text)) return undefined;
  return JSON.parse(`"${text}"`) as string;
}

/** A plain scalar may start here (not with an indicator; `-7` is plain, `- 7` is a sequence). */
function plainStart(line: string, at: number): boolean {
  const c = line.charCodeAt(at);
  switch (c) {
    case 45: /* - */ {
      const next = line.charCodeAt(at + 1);
      return !Number.isNaN(next) && next !== SPACE && next !== 9;
    }
    case 63: case 58: case 44: case 91: case 93: case 123: case 125: case 35: case 38: case 42: case 33:
    case 124: case 62: case 39: case 34: case 37: case 64: case 96: case 9: case SPACE:
      return false;
    default:
      return !Number.isNaN(c);
  }
}

function skipSpaces(line: string, at: number): number {
  while (line.charCodeAt(at) === SPACE) at++;
  return at;
}

/** Nothing but spaces and a comment after `at`. */
function endsLine(line: string, at: number): boolean {
  if (at === line.length) return true;
  if (line.charCodeAt(at) !== SPACE) return false;
  const next = skipSpaces(line, at);
  return next === line.length || line.charCodeAt(next) === HASH;
}
