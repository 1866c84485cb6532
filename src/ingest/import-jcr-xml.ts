// Ingest layer: reads a JCR system-view XML export as it streams, telling a DraftSink its nodes and
// spooling binaries (no store access).
import { Parser } from 'htmlparser2';
import type { BlobSpool } from '../store/rows.js';
import { coerceValue, parsePropertyType, type PropertyType, type ScalarValue } from '../model/property-type.js';
import { ImportError } from './import-error.js';
import { nodeNameProblem, propertyNameProblem } from './node-draft.js';
import { Base64Spool } from './blob-spool.js';
import { MAX_IMPORT_DEPTH, MAX_IMPORT_VALUE_CHARS } from './import-limits.js';
import type { DraftSink } from './draft-sink.js';

/** The root a whole-workspace export is written from; its properties describe the workspace root, not content. */
const WORKSPACE_ROOT = 'jcr:root';

type Frame =
  | { kind: 'node'; isWorkspaceRoot: boolean }
  | { kind: 'property'; name: string; type: PropertyType; multiple: boolean; values: ScalarValue[]; line: number }
  | { kind: 'value'; parts: string[]; chars: number; spool: Base64Spool | undefined };

/**
 * htmlparser2 is lenient: it silently drops a closing tag that matches no open element and closes
 * unclosed ones itself. This subclass reports both, so a damaged export fails instead of losing content.
 */
class CheckedParser extends Parser {
  selfClosing = false;

  constructor(private readonly reader: JcrXmlExportReader) {
    super(reader, { xmlMode: true, decodeEntities: true });
  }

  override onclosetag(start: number, endIndex: number): void {
    const before = this.reader.closeCount;
    super.onclosetag(start, endIndex);
    if (this.reader.closeCount === before) throw this.reader.fail('closing tag without a matching opening tag');
  }

  override onselfclosingtag(endIndex: number): void {
    this.selfClosing = true;
    try {
      super.onselfclosingtag(endIndex);
    } finally {
      this.selfClosing = false;
    }
  }
}

/** Parser callbacks: tells the sink the nodes while the XML streams through. */
export class JcrXmlExportReader {
  closeCount = 0;
  /** The root element is `jcr:root`: its children are the document's roots, written at `/`. */
  isWorkspaceExport = false;
  private readonly parser: CheckedParser;
  private readonly lines = new LineTracker();
  private readonly stack: Frame[] = [];
  private readonly spooled = new Map<string, BlobSpool>();
  private pending: Base64Spool[] = [];
  private rootSeen = false;
  private firstChunk = true;

  constructor(private readonly file: string, private readonly spoolDir: string, private readonly sink: DraftSink) {
    this.parser = new CheckedParser(this);
  }

  /** The root element has been read (isWorkspaceExport is known). */
  get rootKnown(): boolean {
    return this.rootSeen;
  }

  write(chunk: string): void {
    // A byte-order mark would otherwise be text before the root element.
    const text = this.firstChunk && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
    this.firstChunk = false;
    this.lines.feed(text);
    this.parser.write(text);
  }

  end(): void {
    this.parser.end();
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
    return new ImportError(this.file, line ?? this.lines.lineAt(this.parser.startIndex), reason);
  }

  /**
   * `<!DOCTYPE …>` and `<!ENTITY …>`: a system view export has none, and entity definitions are how an
   * XML file expands to gigabytes or reads local files, so they are refused rather than ignored.
   */
  onprocessinginstruction(name: string): void {
    if (name.startsWith('!')) throw this.fail(`a <${name.toUpperCase()}> declaration (DTDs and entities are not allowed in an export)`);
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    const top = this.stack.at(-1);
    const line = this.lines.lineAt(this.parser.startIndex);
    switch (name) {
      case 'sv:node': {
        if (top && top.kind !== 'node') throw this.fail(`sv:node inside ${top.kind === 'value' ? 'sv:value' : 'sv:property'}`);
        if (!top && this.rootSeen) throw this.fail('more than one root element');
        if (this.stack.length >= MAX_IMPORT_DEPTH) throw this.fail(`nodes nested more than ${MAX_IMPORT_DEPTH} deep`);
        const nodeName = requiredAttribute(this, attribs, 'sv:name', name);
        const isWorkspaceRoot = !top && nodeName === WORKSPACE_ROOT;
        const problem = isWorkspaceRoot ? undefined : nodeNameProblem(nodeName);
        if (problem !== undefined) throw this.fail(problem);
        if (!top) {
          this.rootSeen = true;
          this.isWorkspaceExport = isWorkspaceRoot;
        }
        if (!isWorkspaceRoot) this.sink.openNode(nodeName, line);
        this.stack.push({ kind: 'node', isWorkspaceRoot });
        return;
      }
      case 'sv:property': {
        if (top?.kind !== 'node') throw this.fail('sv:property outside sv:node');
        const propertyName = requiredAttribute(this, attribs, 'sv:name', name);
        const problem = top.isWorkspaceRoot ? undefined : propertyNameProblem(propertyName);
        if (problem !== undefined) throw this.fail(problem);
        const typeName = requiredAttribute(this, attribs, 'sv:type', name);
        const type = parsePropertyType(typeName) ?? 'String';
        const multiple = attribs['sv:multiple'] === 'true';
        this.stack.push({ kind: 'property', name: propertyName, type, multiple, values: [], line });
        return;
      }
      case 'sv:value': {
        if (top?.kind !== 'property') throw this.fail('sv:value outside sv:property');
        const spool = top.type === 'Binary' ? new Base64Spool(this.spoolDir) : undefined;
        if (spool) this.pending.push(spool);
        this.stack.push({ kind: 'value', parts: [], chars: 0, spool });
        return;
      }
      default:
        throw this.fail(`unexpected element <${name}> in a JCR system view export`);
    }
  }

  ontext(text: string): void {
    const top = this.stack.at(-1);
    if (top?.kind === 'value') {
      if (!top.spool) {
        top.chars += text.length;
        if (top.chars > MAX_IMPORT_VALUE_CHARS) throw this.fail(`a value longer than ${MAX_IMPORT_VALUE_CHARS} characters`);
        top.parts.push(text);
      } else {
        try {
          top.spool.appendBase64(text);
        } catch (err) {
          throw this.fail(err instanceof Error ? err.message : String(err));
        }
      }
    } else if (text.trim() !== '') {
      throw this.fail('unexpected text outside sv:value');
    }
  }

  onclosetag(name: string, isImplied: boolean): void {
    this.closeCount++;
    if (isImplied && !this.parser.selfClosing) throw this.fail(`<${name}> is not closed`);
    const frame = this.stack.pop();
    if (!frame) throw this.fail(`unexpected closing tag </${name}>`);
    const parent = this.stack.at(-1);
    if (frame.kind === 'value' && parent?.kind === 'property') parent.values.push(this.valueOf(frame, parent));
    else if (frame.kind === 'property' && parent?.kind === 'node') this.closeProperty(frame, parent);
    else if (frame.kind === 'node' && !frame.isWorkspaceRoot) this.sink.closeNode();
  }

  private valueOf(frame: Frame & { kind: 'value' }, property: Frame & { kind: 'property' }): ScalarValue {
    if (frame.spool) {
      let blob: BlobSpool;
      try {
        blob = frame.spool.end();
      } catch (err) {
        throw this.fail(`property ${property.name}: ${err instanceof Error ? err.message : String(err)}`, property.line);
      }
      this.spooled.set(blob.hash, blob);
      return blob.hash;
    }
    try {
      return coerceValue(property.type, frame.parts.join(''));
    } catch (err) {
      throw this.fail(`property ${property.name}: ${err instanceof Error ? err.message : String(err)}`, property.line);
    }
  }

  private closeProperty(frame: Frame & { kind: 'property' }, node: Frame & { kind: 'node' }): void {
    if (node.isWorkspaceRoot) return;
    // Old exports mark multi-value properties only by writing several sv:value (or none).
    const multiple = frame.multiple || frame.values.length !== 1;
    this.sink.property(frame.name, frame.type, multiple ? frame.values : frame.values[0]!, frame.line);
  }
}

function requiredAttribute(reader: JcrXmlExportReader, attribs: Record<string, string>, attr: string, element: string): string {
  const value = attribs[attr];
  if (value === undefined || value === '') throw reader.fail(`<${element}> without ${attr}`);
  return value;
}

/**
 * Line numbers for messages and NodeDraft.line: counts newlines up to the parser's position, moving forward
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
