// Ingest layer: reads a JCR system-view XML export as it streams, telling a DraftSink its nodes and
// spooling binaries (no store access).
import type { BlobSpool } from '../store/rows.js';
import { coerceValue, parsePropertyType, type PropertyType, type ScalarValue } from '../model/property-type.js';
import { ImportError } from './import-error.js';
import { nodeNameProblem, propertyNameProblem } from './node-draft.js';
import { Base64Spool } from './blob-spool.js';
import { detached } from './detached-text.js';
import { MAX_IMPORT_DEPTH, MAX_IMPORT_VALUE_CHARS } from './import-limits.js';
import type { DraftSink } from './draft-sink.js';
import {
  ELEMENT_NAMES, NODE, OTHER, PROPERTY, SystemViewScanner, VALUE, type Element, type SystemViewEvents,
} from './system-view-scanner.js';

/** Property names remembered as checked, at most (an export of distinct names for every node does not grow memory). */
const PROPERTY_NAMES_KEPT = 1000;

/** The root a whole-workspace export is written from; its properties describe the workspace root, not content. */
const WORKSPACE_ROOT = 'jcr:root';

/**
 * Tells the sink the nodes while the XML streams through. A damaged export fails rather than lose
 * content: an element closed by the closing tag of its parent, a closing tag without its start tag,
 * elements left open at the end, anything but sv:node, sv:property and sv:value.
 */
export class JcrXmlExportReader implements SystemViewEvents {
  /** The root element is `jcr:root`: its children are the document's roots, written at `/`. */
  isWorkspaceExport = false;
  private readonly scanner = new SystemViewScanner(this);
  private readonly lines = new LineTracker();
  /** The open elements (NODE, PROPERTY, VALUE), innermost last; a property and a value are never nested in their kind. */
  private readonly open = new Uint8Array(MAX_IMPORT_DEPTH + 2);
  private depth = 0;
  private readonly spooled = new Map<string, BlobSpool>();
  /** Property names checked so far (exports repeat a few names on every node). */
  private readonly propertyNames = new Map<string, string>();
  private pending: Base64Spool[] = [];
  private rootSeen = false;
  private firstChunk = true;
  // The open property (at most one).
  private propertyName = '';
  private propertyType: PropertyType = 'String';
  private propertyMultiple = false;
  private propertyLine = 0;
  private valueCount = 0;
  private firstValue: ScalarValue = '';
  /** Every value once the property has a second one or is marked multiple. */
  private values: ScalarValue[] | undefined;
  // The open value (at most one).
  private valueText = '';
  private valueChars = 0;
  private valueSpool: Base64Spool | undefined;

  constructor(private readonly file: string, private readonly spoolDir: string, private readonly sink: DraftSink) {}

  /** The root element has been read (isWorkspaceExport is known). */
  get rootKnown(): boolean {
    return this.rootSeen;
  }

  write(chunk: string): void {
    // A byte-order mark would otherwise be text before the root element.
    const text = this.firstChunk && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
    this.firstChunk = false;
    this.lines.feed(text);
    this.scanner.write(text);
  }

  end(): void {
    this.scanner.end();
    if (this.depth > 0) throw this.fail(`<${ELEMENT_NAMES[this.open[this.depth - 1]!]}> is not closed`);
    if (!this.rootSeen) throw this.fail('no sv:node element: not a JCR system view export');
  }

  async settled(): Promise<void> {
    for (const spool of this.pending) await spool.settled();
    // The value being read stays pending: later chunks write to it and end it.
    this.pending = this.pending.filter((spool) => !spool.isEnded);
  }

  blobs(): BlobSpool[] {
    return [...this.spooled.values()];
  }

  async abort(): Promise<void> {
    await Promise.all(this.pending.map((spool) => spool.abort()));
  }

  fail(reason: string, line?: number): ImportError {
    return new ImportError(this.file, line ?? this.lines.lineAt(this.scanner.startIndex), reason);
  }

  /**
   * `<!DOCTYPE …>` and `<!ENTITY …>`: a system view export has none, and entity definitions are how an
   * XML file expands to gigabytes or reads local files, so they are refused rather than ignored.
   */
  declaration(name: string): void {
    throw this.fail(`a <${name.toUpperCase()}> declaration (DTDs and entities are not allowed in an export)`);
  }

  openElement(element: Element): void {
    const top = this.depth === 0 ? OTHER : this.open[this.depth - 1]!;
    const scanner = this.scanner;
    switch (element) {
      case NODE: {
        if (top === VALUE || top === PROPERTY) throw this.fail(`sv:node inside ${top === VALUE ? 'sv:value' : 'sv:property'}`);
        if (top === OTHER && this.rootSeen) throw this.fail('more than one root element');
        if (this.depth >= MAX_IMPORT_DEPTH) throw this.fail(`nodes nested more than ${MAX_IMPORT_DEPTH} deep`);
        const nodeName = detached(this.required(scanner.svName, 'sv:name', element));
        const isWorkspaceRoot = top === OTHER && nodeName === WORKSPACE_ROOT;
        const problem = isWorkspaceRoot ? undefined : nodeNameProblem(nodeName);
        if (problem !== undefined) throw this.fail(problem);
        if (top === OTHER) {
          this.rootSeen = true;
          this.isWorkspaceExport = isWorkspaceRoot;
        }
        if (!isWorkspaceRoot) this.sink.openNode(nodeName, this.lines.lineAt(scanner.startIndex));
        this.open[this.depth++] = NODE;
        return;
      }
      case PROPERTY: {
        if (top !== NODE) throw this.fail('sv:property outside sv:node');
        const propertyName = this.propertyNameOf(this.required(scanner.svName, 'sv:name', element));
        const typeName = this.required(scanner.svType, 'sv:type', element);
        this.propertyName = propertyName;
        this.propertyType = typeOf(typeName);
        this.propertyMultiple = scanner.svMultiple === 'true';
        this.propertyLine = this.lines.lineAt(scanner.startIndex);
        this.valueCount = 0;
        this.values = this.propertyMultiple ? [] : undefined;
        this.open[this.depth++] = PROPERTY;
        return;
      }
      case VALUE: {
        if (top !== PROPERTY) throw this.fail('sv:value outside sv:property');
        this.valueText = '';
        this.valueChars = 0;
        this.valueSpool = undefined;
        if (this.propertyType === 'Binary') {
          this.valueSpool = new Base64Spool(this.spoolDir);
          this.pending.push(this.valueSpool);
        }
        this.open[this.depth++] = VALUE;
        return;
      }
      default:
        throw this.fail(`unexpected element <${scanner.otherName}> in a JCR system view export`);
    }
  }

  text(text: string, start: number, end: number): void {
    if (this.depth > 0 && this.open[this.depth - 1] === VALUE) {
      const spool = this.valueSpool;
      if (!spool) {
        this.valueChars += end - start;
        if (this.valueChars > MAX_IMPORT_VALUE_CHARS) throw this.fail(`a value longer than ${MAX_IMPORT_VALUE_CHARS} characters`);
        const piece = start === 0 && end === text.length ? text : text.slice(start, end);
        this.valueText = this.valueText === '' ? piece : this.valueText + piece;
      } else {
        try {
          spool.appendBase64(text.slice(start, end));
        } catch (err) {
          throw this.fail(err instanceof Error ? err.message : String(err));
        }
      }
    } else if (!isBlank(text, start, end)) {
      throw this.fail('unexpected text outside sv:value');
    }
  }

  closeElement(element: Element): void {
    const top = this.depth === 0 ? OTHER : this.open[this.depth - 1]!;
    if (top !== element || top === OTHER) {
      // Matching the innermost open element of that name, as an XML parser would, would close `top` unwritten.
      if (element !== OTHER && this.open.subarray(0, this.depth).includes(element)) {
        throw this.fail(`<${ELEMENT_NAMES[top]}> is not closed`);
      }
      throw this.fail('closing tag without a matching opening tag', this.lines.lineAt(this.scanner.closingNameEnd));
    }
    this.depth--;
    if (element === VALUE) this.addValue(this.valueOf());
    else if (element === PROPERTY) this.closeProperty();
    else if (!(this.depth === 0 && this.isWorkspaceExport)) this.sink.closeNode();
  }

  endInsideStartTag(name: string): void {
    throw this.fail(`<${name}> is not closed`);
  }

  /** The name of a property, checked (or its import fails), detached from the chunk; a name seen before is looked up. */
  private propertyNameOf(raw: string): string {
    const known = this.propertyNames.get(raw);
    if (known !== undefined) return known;
    const name = detached(raw);
    // The workspace root's own properties are not imported: their names are not checked.
    if (this.depth === 1 && this.isWorkspaceExport) return name;
    const problem = propertyNameProblem(name);
    if (problem !== undefined) throw this.fail(problem);
    if (this.propertyNames.size >= PROPERTY_NAMES_KEPT) this.propertyNames.clear();
    this.propertyNames.set(name, name);
    return name;
  }

  private required(value: string | undefined, attr: string, element: Element): string {
    if (value === undefined || value === '') throw this.fail(`<${ELEMENT_NAMES[element]}> without ${attr}`);
    return value;
  }

  private valueOf(): ScalarValue {
    const spool = this.valueSpool;
    if (spool) {
      this.valueSpool = undefined;
      let blob: BlobSpool;
      try {
        blob = spool.end();
      } catch (err) {
        throw this.propertyFailure(err);
      }
      this.spooled.set(blob.hash, blob);
      return blob.hash;
    }
    const text = this.valueText;
    this.valueText = '';
    try {
      const value = coerceValue(this.propertyType, text);
      return typeof value === 'string' ? detached(value) : value;
    } catch (err) {
      throw this.propertyFailure(err);
    }
  }

  private propertyFailure(err: unknown): ImportError {
    return this.fail(`property ${this.propertyName}: ${err instanceof Error ? err.message : String(err)}`, this.propertyLine);
  }

  private addValue(value: ScalarValue): void {
    if (this.values) this.values.push(value);
    else if (this.valueCount === 0) this.firstValue = value;
    else this.values = [this.firstValue, value];
    this.valueCount++;
  }

  private closeProperty(): void {
    if (this.depth === 1 && this.isWorkspaceExport) return;
    // Old exports mark multi-value properties only by writing several sv:value (or none).
    const value = this.values ?? (this.valueCount === 1 ? this.firstValue : []);
    this.values = undefined;
    this.sink.property(this.propertyName, this.propertyType, value, this.propertyLine);
  }
}

/** The type of an sv:type, its usual spelling first (parsePropertyType lower-cases every type to compare). */
function typeOf(name: string): PropertyType {
  switch (name) {
    case 'String':
    case 'Name':
    case 'Date':
    case 'Long':
    case 'Double':
    case 'Boolean':
    case 'Binary':
    case 'WeakReference':
    case 'Reference':
    case 'Path':
    case 'URI':
    case 'Decimal':
      return name;
    default:
      return parsePropertyType(name) ?? 'String';
  }
}

/** `text.slice(start, end).trim() === ''` without the slice for the usual line break and indentation. */
function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d) continue;
    return text.slice(i, end).trim() === '';
  }
  return true;
}

/**
 * Line numbers for messages and NodeDraft.line: counts newlines up to the scanner's position, moving forward
 * only, so the whole file is scanned once. A position in an earlier chunk reports the current line.
 */
class LineTracker {
  private chunk = '';
  private chunkStart = 0;
  private counted = 0;
  private line = 1;

  feed(chunk: string): void {
    this.advance(this.chunk.length);
    this.chunkStart += this.chunk.length;
    this.chunk = chunk;
    this.counted = 0;
  }

  lineAt(index: number): number {
    this.advance(Math.min(Math.max(index - this.chunkStart, 0), this.chunk.length));
    return this.line;
  }

  private advance(to: number): void {
    let at = this.chunk.indexOf('\n', this.counted);
    while (at !== -1 && at < to) {
      this.line++;
      at = this.chunk.indexOf('\n', at + 1);
    }
    if (to > this.counted) this.counted = to;
  }
}
