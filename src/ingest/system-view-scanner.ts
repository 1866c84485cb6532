// Ingest layer: a streaming XML scanner specialised for JCR system-view exports. It finds markup with
// indexOf over each chunk, reads only the three attributes the format needs, and slices each value's
// text once. It reproduces htmlparser2's xmlMode tokenizing (which the reader used before), so that the
// same files succeed, with the same text pieces and the same positions for error lines.

import {
  ELEMENT_NAMES, NODE, OTHER, PROPERTY, VALUE, GT, SLASH, BANG, QUESTION, HASH, SEMI,
  isSpace, endsName, byLength, elementAt, knownNameEnd, type Element,
} from './system-view-names.js';
import { INCOMPLETE, NO_ENTITY, XmlReferences } from './xml-references.js';
import { TagAttributes } from './system-view-attributes.js';
import {
  CDATA_TEXT_FROM, DECLARATION_TEXT_FROM, readDeclaration, tailKindOf, TAIL_CDATA, TAIL_COMMENT, TAIL_NOTHING, TAIL_START_TAG, TAIL_TEXT,
} from './system-view-declarations.js';

export { ELEMENT_NAMES, NODE, OTHER, PROPERTY, VALUE, type Element };

/** What the scanner reports, in document order; `startIndex` then says where (see SystemViewScanner). */
export interface SystemViewEvents {
  /** A start tag (an empty-element tag: then its closeElement); sv:name, sv:type and sv:multiple are in the scanner's fields. */
  openElement(element: Element): void;
  closeElement(element: Element): void;
  /** A piece of character data, `text.slice(start, end)` (entities and CDATA already decoded). */
  text(text: string, start: number, end: number): void;
  /** `<!…>` other than a comment or CDATA; `name` is `!` and the declaration's first word. */
  declaration(name: string): void;
  /** The input ended inside the start tag of `name` after its name was read. */
  endInsideStartTag(name: string): void;
}

/** Where a start tag's attribute reading stands when the input ends inside the tag. */
const IN_ATTRIBUTES = 0, AFTER_SLASH = 1;

/** `scan` reads a chunk, not a bridge. */
const NOT_A_BRIDGE = -1;
/**
 * Characters of the next chunk a bridge starts with (then 8 times more each time). Small, so that the
 * tests' tiny chunks take this path too; a cut tag is mostly complete with the next 32 or 256.
 */
const BRIDGE = 4;
const LONG_TAIL = 4096;

/**
 * Feeds chunks of decoded text; reports elements, text and declarations to `events`. A construct cut by
 * a chunk's end (a tag, a comment, a CDATA section, an entity reference) is kept as a tail and read again
 * with the next chunk; text is reported up to each chunk's end, as htmlparser2 does.
 */
export class SystemViewScanner {
  /** sv:name, sv:type and sv:multiple of the start tag being reported (the first of each, entity-decoded). */
  get svName(): string | undefined { return this.tag.svName; }
  get svType(): string | undefined { return this.tag.svType; }
  get svMultiple(): string | undefined { return this.tag.svMultiple; }
  private readonly references = new XmlReferences();
  private readonly tag = new TagAttributes(this.references);
  /** The name of an OTHER element being reported. */
  otherName = '';
  /**
   * The input position errors are located at: htmlparser2's `startIndex` (the `<` of a tag, the start
   * of a text piece, and its quirks: after a closing tag's name, at a PI's `>`).
   */
  startIndex = 0;
  /** Where htmlparser2 stood after a closing tag's name (it reports a closing tag without a start tag there). */
  closingNameEnd = 0;

  private tail = '';
  /** Input position of the first character of `tail`, or of the next chunk when there is no tail. */
  private base = 0;
  /** In `tail`: where scanning resumes (0, or a cut entity reference after pending text). */
  private resume = 0;
  /** The input is inside a closing tag whose name was read: skip to its `>`. */
  private afterClosingName = false;
  private lastChar = '';
  /** Set by markupAt: the `<` it read starts character data. */
  private ltStartsText = false;
  /** Set when the tail is kept: what it amounts to if the input ends there. */
  private tailKind = TAIL_NOTHING;
  private tailTextFrom = 0;
  private tailTagName = '';
  private tailTagState = IN_ATTRIBUTES;
  private tailAttrStart = -1;

  constructor(private readonly events: SystemViewEvents) {}

  write(chunk: string): void {
    if (chunk === '') return;
    this.lastChar = chunk[chunk.length - 1]!;
    let from = 0;
    if (this.tail !== '') {
      from = this.bridge(chunk);
      if (from === INCOMPLETE) return;
    }
    if (this.afterClosingName) {
      const gt = chunk.indexOf('>', from);
      if (gt === -1) {
        this.base += chunk.length;
        return;
      }
      this.afterClosingName = false;
      from = gt + 1;
    }
    this.scan(chunk, from, from, NOT_A_BRIDGE);
  }

  /**
   * Reads the tail with the start of `chunk`: the offset in `chunk` where reading goes on, or INCOMPLETE
   * when the whole chunk was read. A string joining a whole chunk to the tail would be flattened by the
   * first indexOf, a copy of the chunk each time; a short bridge, grown until the construct cut by the
   * last chunk's end is complete in it, avoids that.
   */
  private bridge(chunk: string): number {
    const tail = this.tail;
    this.tail = '';
    const resume = this.resume;
    // A long tail (a CDATA section or comment over several chunks) is copied whole anyway.
    for (let take = tail.length > LONG_TAIL ? chunk.length : BRIDGE; ; take *= 8) {
      if (take >= chunk.length) {
        this.scan(tail + chunk, resume, 0, NOT_A_BRIDGE);
        return INCOMPLETE;
      }
      const at = this.scan(tail + chunk.slice(0, take), resume, 0, tail.length);
      if (at >= tail.length) {
        this.base += tail.length;
        return at - tail.length;
      }
    }
  }

  /** The input ended: reports what htmlparser2 reports for an unfinished construct, and moves `startIndex` as it does. */
  end(): void {
    const tail = this.tail;
    const total = this.base + tail.length;
    this.tail = '';
    if (this.afterClosingName) {
      // htmlparser2 reports a stale one-character slice here (the input's last character for a file read whole).
      this.afterClosingName = false;
      this.events.text(this.lastChar, 0, this.lastChar.length);
      this.startIndex = total;
      return;
    }
    if (tail === '') return;
    switch (this.tailKind) {
      case TAIL_TEXT:
        if (this.tailTextFrom < tail.length) {
          this.events.text(tail, this.tailTextFrom, tail.length);
          this.startIndex = total;
        }
        return;
      case TAIL_CDATA:
        if (this.tailTextFrom < tail.length) {
          this.events.text(tail, this.tailTextFrom, tail.length);
          this.startIndex = total + 1;
        }
        return;
      case TAIL_COMMENT:
        this.startIndex = total + 1;
        return;
      case TAIL_START_TAG:
        if (this.tailAttrStart !== -1) this.startIndex = this.base + this.tailAttrStart;
        if (this.tailTagState === AFTER_SLASH) {
          this.events.text(this.lastChar, 0, this.lastChar.length);
          this.startIndex = total;
        }
        this.events.endInsideStartTag(this.tailTagName);
        return;
      default:
    }
  }

  /**
   * Reads `buf` from `from`, text pending since `pendingFrom`. With `bridgeOf` (the tail's length in a
   * bridge) it reports nothing that the bridge's end cuts, but returns where reading stopped: at or past
   * `bridgeOf` the chunk's reading goes on there; before it nothing was reported, and a longer bridge is needed.
   */
  private scan(buf: string, from: number, pendingFrom: number, bridgeOf: number): number {
    const len = buf.length;
    const base = this.base;
    const events = this.events;
    let textStart = pendingFrom;
    let i = from;
    let amp = buf.indexOf('&', i);
    if (amp === -1) amp = len;
    for (;;) {
      let lt = buf.indexOf('<', i);
      if (lt === -1) lt = len;
      if (amp < i) {
        amp = buf.indexOf('&', i);
        if (amp === -1) amp = len;
      }
      while (amp < lt) {
        const consumed = this.references.at(buf, amp, len);
        if (consumed === INCOMPLETE) {
          // Only possible with no `<` after it: keep the pending text and the reference for the next chunk.
          if (bridgeOf !== NOT_A_BRIDGE) return textStart;
          this.keepTail(buf, textStart, amp - textStart, TAIL_TEXT, 0);
          return len;
        }
        if (consumed === NO_ENTITY) {
          amp = buf.indexOf('&', amp + 1);
          if (amp === -1) amp = len;
          continue;
        }
        if (textStart < amp) {
          events.text(buf, textStart, amp);
          this.startIndex = base + amp;
        }
        const decoded = this.references.decoded;
        events.text(decoded, 0, decoded.length);
        textStart = amp + consumed;
        this.startIndex = base + textStart;
        amp = buf.indexOf('&', textStart);
        if (amp === -1) amp = len;
      }
      if (lt === len) return this.chunkEnd(buf, textStart, bridgeOf);
      if (textStart < lt) {
        events.text(buf, textStart, lt);
        this.startIndex = base + lt;
      }
      const next = this.markupAt(buf, lt, len);
      if (next === INCOMPLETE) {
        if (bridgeOf !== NOT_A_BRIDGE) return lt;
        this.keepTail(buf, lt, 0, this.tailKind, this.tailTextFrom);
        return len;
      }
      if (this.ltStartsText) {
        // A `<` before a space or `>`, `</>`: htmlparser2 reads it as character data.
        this.ltStartsText = false;
        textStart = lt;
        i = next;
      } else {
        textStart = next;
        i = next;
      }
      if (i >= len) return this.chunkEnd(buf, textStart, bridgeOf);
    }
  }

  /** The end of a chunk: the text pending is a piece, as htmlparser2 has it (a bridge's end is no chunk's end). */
  private chunkEnd(buf: string, textStart: number, bridgeOf: number): number {
    const len = buf.length;
    if (bridgeOf !== NOT_A_BRIDGE) return textStart;
    if (textStart < len) {
      this.events.text(buf, textStart, len);
      this.startIndex = this.base + len;
    }
    this.base += len;
    return len;
  }

  private keepTail(buf: string, from: number, resume: number, kind: number, textFrom: number): void {
    this.tail = buf.slice(from);
    this.base += from;
    this.resume = resume;
    this.tailKind = kind;
    this.tailTextFrom = textFrom;
  }

  /**
   * Reads the markup at `lt`: the index text resumes at (scanning resumes at when `ltStartsText` is set:
   * the `<` itself starts text); INCOMPLETE (with `tailKind` set) when the chunk ends first.
   */
  private markupAt(buf: string, lt: number, len: number): number {
    this.tailKind = TAIL_TEXT;
    this.tailTextFrom = 0;
    if (lt + 1 >= len) return INCOMPLETE;
    const c = buf.charCodeAt(lt + 1);
    if (c === SLASH) return this.closingTagAt(buf, lt, len);
    if (c === BANG) return this.declarationAt(buf, lt, len);
    if (c === QUESTION) {
      // A processing instruction (the XML declaration among them): skipped.
      const end = buf.indexOf('?>', lt + 2);
      this.tailTextFrom = 2;
      if (end === -1) return INCOMPLETE;
      this.startIndex = this.base + end + 1;
      return end + 2;
    }
    if (isSpace(c) || c === GT) {
      this.ltStartsText = true;
      return lt + 1;
    }
    return this.startTagAt(buf, lt, len);
  }

  private closingTagAt(buf: string, lt: number, len: number): number {
    let j = lt + 2;
    while (j < len && isSpace(buf.charCodeAt(j))) j++;
    if (j >= len) return INCOMPLETE;
    const c = buf.charCodeAt(j);
    if (c === GT) {
      this.ltStartsText = true;
      return j + 1;
    }
    if (c === SLASH) {
      // `<//…>` is a bogus comment to htmlparser2: skipped.
      const gt = buf.indexOf('>', j + 1);
      this.tailTextFrom = j - lt;
      if (gt === -1) return INCOMPLETE;
      this.startIndex = this.base + gt + 1;
      return gt + 1;
    }
    let k = knownNameEnd(buf, j);
    let element: Element;
    if (k !== -1) {
      element = byLength(k - j);
    } else {
      k = j + 1;
      while (k < len && !endsName(buf.charCodeAt(k))) k++;
      if (k >= len) {
        this.tailKind = TAIL_NOTHING;
        return INCOMPLETE;
      }
      element = elementAt(buf, j, k);
    }
    this.closingNameEnd = this.base + k + 1;
    this.events.closeElement(element);
    this.startIndex = this.base + k + 1;
    const gt = buf.charCodeAt(k) === GT ? k : buf.indexOf('>', k + 1);
    if (gt === -1) {
      this.afterClosingName = true;
      return len;
    }
    return gt + 1;
  }

  /** `<!…>`: a comment, CDATA or a declaration (system-view-declarations.ts reads them). */
  private declarationAt(buf: string, lt: number, len: number): number {
    const next = readDeclaration(this.events, buf, lt, len);
    if (next >= 0) {
      this.startIndex = this.base + next;
      return next;
    }
    this.tailKind = tailKindOf(next);
    this.tailTextFrom = this.tailKind === TAIL_CDATA ? CDATA_TEXT_FROM : DECLARATION_TEXT_FROM;
    return INCOMPLETE;
  }

  /** A start tag: its name, then attributes read as htmlparser2's tokenizer reads them. */
  private startTagAt(buf: string, lt: number, len: number): number {
    const nameStart = lt + 1;
    let p = knownNameEnd(buf, nameStart);
    const known = p !== -1;
    if (!known) {
      p = nameStart + 1;
      while (p < len && !endsName(buf.charCodeAt(p))) p++;
      if (p >= len) {
        this.tailKind = TAIL_NOTHING;
        return INCOMPLETE;
      }
    }
    const nameEnd = p;
    const tag = this.tag;
    p = tag.read(buf, p, len);
    if (p === -1) {
      this.tailKind = TAIL_START_TAG;
      this.tailTagName = buf.slice(nameStart, nameEnd);
      this.tailTagState = tag.afterSlash ? AFTER_SLASH : IN_ATTRIBUTES;
      this.tailAttrStart = tag.lastAttrStart === -1 ? -1 : tag.lastAttrStart - lt;
      return INCOMPLETE;
    }
    const selfClosing = tag.afterSlash;
    const element = known ? byLength(nameEnd - nameStart) : elementAt(buf, nameStart, nameEnd);
    if (element === OTHER) this.otherName = buf.slice(nameStart, nameEnd);
    this.events.openElement(element);
    if (selfClosing) this.events.closeElement(element);
    this.startIndex = this.base + p + 1;
    return p + 1;
  }
}
