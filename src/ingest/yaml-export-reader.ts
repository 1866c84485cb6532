// Ingest layer: streams a YAML bootstrap export into a DraftSink, line by line, holding only the open
// nodes (their key sets) and the item being read, whatever the file's size. The lines Magnolia writes
// are read here (yaml-line-scan.ts); any other item is composed by the `yaml` package on its own
// (yaml-composed-items.ts), so the result is the one of `yaml` composing the whole document.
//
// Errors come in the order the whole-document reader had them (yaml-failures.ts).
import type { BlobSpool } from '../store/rows.js';
import type { DraftSink } from './draft-sink.js';
import { ImportError } from './import-error.js';
import { YamlFailures } from './yaml-failures.js';
import { closingSingleQuote, scanKey, scanValue, unquoteSingle, ScannedKey, ScannedValue } from './yaml-line-scan.js';
import { YamlItemRules } from './yaml-item-rules.js';
import { ChunkLines } from './chunk-lines.js';
import {
  LeafItem, LevelPool, OpenItem, SeqItem, pieceOf, type Level, type Pending, type Piece, QuoteItem,
} from './yaml-pending-items.js';
import { ComposedPiece, ComposedReader } from './yaml-composed-items.js';
import { endsLine, foldQuoted, isDocumentMarker, isSequenceEntry, simpleEntry } from './yaml-line-shapes.js';

const NO_VALUE = new ScannedValue();

export class YamlExportReader {
  private readonly levels: Level[] = [];
  private readonly levelPool = new LevelPool();
  private pending: Pending | undefined;
  // Records refilled line after line (see yaml-pending-items.ts).
  private readonly leafItem = new LeafItem();
  private readonly openItem = new OpenItem();
  private readonly seqItem = new SeqItem();
  private readonly scannedKey = new ScannedKey();
  private readonly scanned = new ScannedValue();
  private readonly lines = new ChunkLines((line) => this.line(line));
  private lineNo = 0;
  /** Lines before the first content line, kept in case the document is not one the line reader starts on. */
  private preamble: string[] | undefined = [];
  /** The whole text, for a document that does not start with a block-map key (a flow mapping, directives…). */
  private whole: string[] | undefined;
  private documentEnded = false;
  /** The file's last line had no line break: a block scalar ending there keeps none either. */
  private noFinalNewline = false;
  private started = false;
  private readonly failures = new YamlFailures();
  private readonly composed: ComposedReader;
  private readonly rules: YamlItemRules;

  constructor(private readonly file: string, spoolDir: string, private readonly sink: DraftSink) {
    this.rules = new YamlItemRules(file, spoolDir, sink);
    this.composed = new ComposedReader(file, this.rules.typing, () => this.sink);
  }

  write(chunk: string): void {
    this.lines.write(chunk);
  }

  end(): void {
    // Only the item still pending holds the last line.
    if (this.lines.end()) this.noFinalNewline = true;
    if (this.whole) {
      this.readWhole();
      return;
    }
    if (this.pending) this.complete(this.pending);
    this.pending = undefined;
    this.closeLevels(-1);
    if (!this.started) throw new ImportError(this.file, 1, 'the file is empty');
    this.failures.throwFirst();
  }

  /** Waits for the binaries spooled so far to be on disk. */
  settled(): Promise<void> {
    return this.rules.settled();
  }

  abort(): Promise<void> {
    return this.rules.abort();
  }

  blobs(): BlobSpool[] {
    return this.rules.blobs();
  }

  private get failed(): boolean {
    return this.failures.failed;
  }

  /** Runs the content rules of an item; their first error is kept for the end (a syntax error may follow). */
  private content(read: () => void): void {
    if (this.failed) return;
    try {
      read();
    } catch (err) {
      this.failures.content(err);
    }
  }

  private syntaxError(line: number, reason: string): ImportError {
    return new ImportError(this.file, line, reason);
  }

  /** One line of the file (without its `\n`). */
  private line(raw: string): void {
    const n = ++this.lineNo;
    if (this.whole) {
      this.whole.push(raw);
      return;
    }
    let s = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
    if (n === 1 && s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    let indent = 0;
    while (s.charCodeAt(indent) === 32) indent++;
    let c = s.charCodeAt(indent);
    let tabbed = false;
    if (c === 9) {
      let at = indent;
      while (s.charCodeAt(at) === 9 || s.charCodeAt(at) === 32) at++;
      c = s.charCodeAt(at);
      tabbed = !Number.isNaN(c) && c !== 35;
    }
    const blank = Number.isNaN(c) || c === 35 /* # */;
    const p = this.pending;
    if (p?.kind === 'quote') {
      this.quoteLine(p, raw, s, indent, blank);
      return;
    }
    if (blank) {
      if (p) {
        if (p.kind === 'piece') p.raw.push(raw);
        else p.addRaw(raw);
      }
      else if (this.preamble) this.preamble.push(raw);
      return;
    }
    if (p && this.continues(p, raw, s, indent, tabbed)) return;
    if (p) this.complete(p);
    this.pending = undefined;
    this.contentLine(raw, s, indent, tabbed, n);
  }

  /** Whether a content line belongs to the pending item (and takes it). */
  private continues(p: Pending, raw: string, s: string, indent: number, tabbed: boolean): boolean {
    const levelIndent = p.level.indent;
    if (p.kind === 'seq') return this.continuesSequence(p, raw, s, indent, tabbed);
    if (p.kind === 'open' && indent >= levelIndent && !tabbed && isSequenceEntry(s, indent)) {
      if (simpleEntry(raw, s, indent, this.scanned)) {
        this.pending = this.seqItem.start(p, indent, this.scanned, this.lineNo, raw);
        return true;
      }
    }
    if (indent === levelIndent && !tabbed && isSequenceEntry(s, indent)) {
      // A block sequence may sit at its key's indentation (`key:` then `- a`).
      if (p.kind === 'open') {
        this.pending = pieceOf(p, raw, true);
        return true;
      }
      if (p.kind === 'piece' && p.seqAtIndent) {
        p.raw.push(raw);
        return true;
      }
      return false;
    }
    if (indent <= levelIndent) return false;
    switch (p.kind) {
      case 'piece':
        p.raw.push(raw);
        return true;
      case 'leaf':
        this.pending = pieceOf(p, raw);
        return true;
      case 'open': {
        if (tabbed || !scanKey(s, indent, this.scannedKey)) {
          this.pending = pieceOf(p, raw);
          return true;
        }
        // The first key of a nested mapping: the item is a node, read as its lines come.
        this.pending = undefined;
        this.openNode(p);
        const level = this.levelPool.at(p.level.depth + 1, indent);
        this.levels.push(level);
        this.keyLine(level, raw, s, this.scannedKey, this.lineNo);
        return true;
      }
      default:
        return false;
    }
  }

  /**
   * A line after a block sequence of one-line scalars: another such entry at the same indentation, or
   * the end of the sequence; anything else in it (a nested entry, a continued scalar) is left to `yaml`.
   */
  private continuesSequence(p: SeqItem, raw: string, s: string, indent: number, tabbed: boolean): boolean {
    const entry = !tabbed && isSequenceEntry(s, indent);
    if (indent === p.itemIndent && entry) {
      if (simpleEntry(raw, s, indent, this.scanned)) {
        p.addEntry(this.scanned, this.lineNo, raw);
        return true;
      }
    }
    const levelIndent = p.level.indent;
    if (indent < levelIndent || (indent === levelIndent && !(p.seqAtIndent && entry))) return false;
    this.pending = pieceOf(p, raw, p.seqAtIndent);
    return true;
  }

  /** A content line that starts an item (or ends the document's block structure). */
  private contentLine(raw: string, s: string, indent: number, tabbed: boolean, n: number): void {
    if (!this.started) {
      this.firstContentLine(raw, s, indent, tabbed, n);
      return;
    }
    if (indent === 0 && isDocumentMarker(s)) {
      if (s.startsWith('---')) throw this.syntaxError(n, 'Source contains multiple documents; please use YAML.parseAllDocuments()');
      this.closeLevels(-1);
      this.documentEnded = true;
      return;
    }
    if (this.documentEnded) throw this.syntaxError(n, 'Source contains multiple documents; please use YAML.parseAllDocuments()');
    if (tabbed) throw this.syntaxError(n, 'Tabs are not allowed as indentation');
    this.closeLevels(indent);
    const level = this.levels.at(-1)!;
    if (level.indent !== indent) throw this.syntaxError(n, 'All mapping items must start at the same column');
    if (scanKey(s, indent, this.scannedKey)) {
      this.keyLine(level, raw, s, this.scannedKey, n);
      return;
    }
    if (isSequenceEntry(s, indent)) throw this.syntaxError(n, 'A block sequence may not be used as an implicit map key');
    this.pending = { kind: 'piece', level, line: n, raw: [raw], keyChecked: false, seqAtIndent: false };
  }

  private firstContentLine(raw: string, s: string, indent: number, tabbed: boolean, n: number): void {
    // A bare `---` starts the document; a block mapping follows.
    if (indent === 0 && /^---[ \t]*$/.test(s)) {
      this.preamble!.push(raw);
      return;
    }
    const key = !tabbed && !s.startsWith('%') && !isDocumentMarker(s) && scanKey(s, indent, this.scannedKey);
    if (!key) {
      // Not a block mapping Magnolia would write (a flow mapping, a directive, a scalar…): composed whole.
      this.whole = [...this.preamble!, raw];
      this.preamble = undefined;
      return;
    }
    this.preamble = undefined;
    this.started = true;
    const top = this.levelPool.at(0, indent);
    this.levels.push(top);
    this.keyLine(top, raw, s, this.scannedKey, n);
  }

  /** A `key: value` line at `level`: the value decides how the item is read. */
  private keyLine(level: Level, raw: string, s: string, scanned: ScannedKey, n: number): void {
    const key = scanned.key;
    this.checkKey(level, key, n);
    const value = this.scanned;
    if (!scanValue(s, scanned.next, value) || (value.kind === 'openQuote' && (raw.includes('\t') || s.includes('\r')))) {
      this.pending = { kind: 'piece', level, line: n, raw: [raw], keyChecked: true, seqAtIndent: false };
    } else if (value.kind === 'none') {
      this.pending = this.openItem.start(level, key, n, raw);
    } else if (value.kind === 'openQuote') {
      this.pending = new QuoteItem(level, key, n, value.tag, value.text, raw);
    } else if (s.includes('\r')) {
      this.pending = { kind: 'piece', level, line: n, raw: [raw], keyChecked: true, seqAtIndent: false };
    } else {
      this.pending = this.leafItem.start(level, key, n, raw, value);
    }
  }

  private checkKey(level: Level, key: string, line: number): void {
    if (!level.keys.add(key)) throw this.syntaxError(line, 'Map keys must be unique');
    if (level.depth === 0 && level.keys.size === 2) {
      this.failures.shape(new ImportError(this.file, line, 'more than one top-level key (an export holds one node)'));
    }
  }

  /** A line inside a single-quoted scalar that began on an earlier line. */
  private quoteLine(p: QuoteItem, raw: string, s: string, indent: number, blank: boolean): void {
    const emptyLine = indent === s.length;
    // Tabs, stray carriage returns and lines the scalar may not hold (too little indentation) go to `yaml`.
    if (raw.includes('\t') || s.includes('\r') || (!emptyLine && indent <= p.level.indent)) {
      const cut = !emptyLine && indent <= p.level.indent;
      this.pending = { ...pieceOf(p), cut };
      if (cut) {
        this.complete(this.pending);
        this.pending = undefined;
        this.rereadLine(raw, s, indent, blank);
      } else {
        this.pending.raw.push(raw);
      }
      return;
    }
    p.raw.push(raw);
    const end = closingSingleQuote(s, 0);
    if (end < 0) {
      p.parts.push(s);
      return;
    }
    p.parts.push(s.slice(0, end));
    if (!endsLine(s, end + 1)) {
      this.pending = pieceOf(p);
      return;
    }
    const text = unquoteSingle(foldQuoted(p.parts), 0, Infinity);
    this.scanned.set('scalar', text, false, p.tag);
    const leaf = this.leafItem.start(p.level, p.key, p.line, p.raw[0]!, this.scanned);
    for (let i = 1; i < p.raw.length; i++) leaf.addRaw(p.raw[i]!);
    this.pending = leaf;
  }

  /** Re-reads a line after the item it ended was completed (the line number is already counted). */
  private rereadLine(raw: string, s: string, indent: number, blank: boolean): void {
    if (blank) return;
    let tabbed = false;
    if (s.charCodeAt(indent) === 9) tabbed = true;
    this.contentLine(raw, s, indent, tabbed, this.lineNo);
  }

  /** Closes the open nodes deeper than `indent` (all with -1). */
  private closeLevels(indent: number): void {
    while (this.levels.length > 1 && this.levels.at(-1)!.indent > indent) {
      this.levels.pop();
      if (!this.failed) this.sink.closeNode();
    }
    if (indent < 0) this.levels.length = 0;
  }

  private openNode(p: OpenItem): void {
    const depth = p.level.depth + 1;
    this.content(() => {
      this.rules.checkNodeName(p.key, p.line, depth);
      this.sink.openNode(p.key, p.line);
    });
  }

  private complete(p: Pending): void {
    switch (p.kind) {
      case 'leaf':
        this.completeLeaf(p.level, p.key, p.line, p.value);
        return;
      case 'open':
        this.completeLeaf(p.level, p.key, p.line, NO_VALUE);
        return;
      case 'seq':
        this.completeSequence(p);
        return;
      case 'quote':
        // The file ended inside the quotes: `yaml` says how.
        this.completePiece(pieceOf(p));
        return;
      case 'piece':
        this.completePiece(p);
    }
  }

  private completeLeaf(level: Level, key: string, line: number, value: ScannedValue): void {
    if (this.failed) return;
    // Not through `content()`: this runs for every property, and a closure each time shows in profiles.
    try {
      if (level.depth === 0) this.rules.rootLeaf(key, line, value);
      else this.rules.leaf(level.depth, key, line, value);
    } catch (err) {
      this.failures.content(err);
    }
  }

  private completeSequence(p: SeqItem): void {
    // The top-level key's value must be a mapping: `yaml` says where this one is wrong.
    if (p.level.depth === 0) {
      this.completePiece(pieceOf(p, undefined, p.seqAtIndent));
      return;
    }
    this.content(() => this.rules.sequence(p.key, p.line, p.entries, p.count));
  }

  private completePiece(p: Piece): void {
    const text = p.raw.join('\n') + (this.noFinalNewline || p.cut ? '' : '\n');
    const piece = new ComposedPiece(text, p.line);
    const pair = ComposedReader.pairOf(piece);
    const error = piece.firstError(this.file);
    if (!p.keyChecked && pair) {
      const key = ComposedReader.keyText(pair.key);
      if (key !== undefined && (!error || (error.line ?? 0) >= p.line)) this.checkKey(p.level, key, p.line);
    }
    if (error) throw error;
    if (!pair) throw this.syntaxError(p.line, 'Implicit map keys need to be followed by map values');
    this.content(() => {
      if (p.level.depth === 0) this.composed.readRoot(piece, pair.key, pair.value);
      else this.composed.readItem(piece, pair.key, pair.value, p.level.depth);
      this.composed.keepAnchors(piece, text);
    });
  }

  private readWhole(): void {
    const text = this.whole!.join('\n') + (this.noFinalNewline ? '' : '\n');
    this.whole = undefined;
    const piece = new ComposedPiece(text, 1);
    const error = piece.firstError(this.file);
    if (error) throw error;
    this.composed.readDocument(piece);
  }
}
