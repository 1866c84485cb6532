// Ingest layer: streams a JCR system-view XML export into an ImportDocument, spooling binaries (no store access).
import { createReadStream } from 'node:fs';
import { Parser } from 'htmlparser2';
import type { BlobSpool } from '../store/rows.js';
import type { ImportDocument, NodeDraft } from '../repository/import-document.js';
import { coerceValue, parsePropertyType, type PropertyType, type ScalarValue } from '../model/property-type.js';
import { ImportError, toImportError } from './import-error.js';
import { parseExportFileName } from './parse-file-name.js';
import { addProperty, newDraft, nodeNameProblem, propertyNameProblem } from './node-draft.js';
import { Base64Spool } from './blob-spool.js';
import { MAX_IMPORT_DEPTH, MAX_IMPORT_VALUE_CHARS } from './import-limits.js';

/** The root a whole-workspace export is written from; its properties describe the workspace root, not content. */
const WORKSPACE_ROOT = 'jcr:root';
const READ_CHUNK = 256 * 1024;

type Frame =
  | { kind: 'node'; draft: NodeDraft; isWorkspaceRoot: boolean }
  | { kind: 'property'; name: string; type: PropertyType; multiple: boolean; values: ScalarValue[]; line: number }
  | { kind: 'value'; parts: string[]; chars: number; spool: Base64Spool | undefined };

export async function parseJcrXmlExport(
  file: string, opts: { spoolDir: string; onProgress?: (bytesRead: number) => void },
): Promise<ImportDocument> {
  const target = parseExportFileName(file);
  const reader = new SystemViewReader(file, opts.spoolDir);
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: READ_CHUNK });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      reader.write(chunk);
      // Waiting for the spool writes before reading on bounds memory to one chunk of decoded bytes.
      await reader.settled();
      opts.onProgress?.(stream.bytesRead);
    }
    const roots = reader.end();
    await reader.settled();
    return {
      source: file,
      workspace: target.workspace,
      parentPath: reader.isWorkspaceExport ? '/' : target.parentPath,
      roots,
      blobs: reader.blobs(),
    };
  } catch (err) {
    stream.destroy();
    await reader.abort();
    throw toImportError(file, err);
  }
}

/**
 * htmlparser2 is lenient: it silently drops a closing tag that matches no open element and closes
 * unclosed ones itself. This subclass reports both, so a damaged export fails instead of losing content.
 */
class CheckedParser extends Parser {
  selfClosing = false;

  constructor(private readonly reader: SystemViewReader) {
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

/** Parser callbacks: builds the drafts while the XML streams through. */
class SystemViewReader {
  closeCount = 0;
  isWorkspaceExport = false;
  private readonly parser: CheckedParser;
  private readonly lines = new LineTracker();
  private readonly stack: Frame[] = [];
  private readonly spooled = new Map<string, BlobSpool>();
  private pending: Base64Spool[] = [];
  private roots: NodeDraft[] | undefined;
  private rootSeen = false;
  private firstChunk = true;

  constructor(private readonly file: string, private readonly spoolDir: string) {
    this.parser = new CheckedParser(this);
  }

  write(chunk: string): void {
    // A byte-order mark would otherwise be text before the root element.
    const text = this.firstChunk && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
    this.firstChunk = false;
    this.lines.feed(text);
    this.parser.write(text);
  }

  end(): NodeDraft[] {
    this.parser.end();
    if (!this.roots) throw this.fail('no sv:node element: not a JCR system view export');
    return this.roots;
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
        this.stack.push({ kind: 'node', draft: newDraft(nodeName, line), isWorkspaceRoot });
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
    else if (frame.kind === 'node') this.closeNode(frame, parent);
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
    addProperty(node.draft, frame.name, frame.type, multiple ? frame.values : frame.values[0]);
  }

  private closeNode(frame: Frame & { kind: 'node' }, parent: Frame | undefined): void {
    if (parent?.kind === 'node') parent.draft.children.push(frame.draft);
    else if (!parent) this.roots = frame.isWorkspaceRoot ? frame.draft.children : [frame.draft];
  }
}

function requiredAttribute(reader: SystemViewReader, attribs: Record<string, string>, attr: string, element: string): string {
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
