// Ingest layer: the attributes of a start tag of a JCR system-view export, for the scanner
// (system-view-scanner.ts): only the first sv:name, sv:type and sv:multiple are kept, entity-decoded,
// as htmlparser2 kept the first of a repeated attribute; the usual `sv:name="…"` is read without loops.
import { EQ, DQ, GT, SLASH, SQ, attributeOf, endsName, isSpace, propertyTypeAt, svAttributeAt } from './system-view-names.js';
import type { XmlReferences } from './xml-references.js';

export class TagAttributes {
  svName: string | undefined;
  svType: string | undefined;
  svMultiple: string | undefined;
  /** The last thing read was a `/` (a `>` next closes the element at once). */
  afterSlash = false;
  /** Where the last attribute began (-1: none yet): a cut tag is read again from there. */
  lastAttrStart = -1;

  constructor(private readonly references: XmlReferences) {}

  /** Reads the attributes from `p` (after the tag's name): the index of the tag's `>`, or -1 when `buf` ends first. */
  read(buf: string, p: number, len: number): number {
    this.svName = undefined;
    this.svType = undefined;
    this.svMultiple = undefined;
    this.afterSlash = false;
    this.lastAttrStart = -1;
    for (;;) {
      if (p >= len) return -1;
      let c = buf.charCodeAt(p);
      if (c === GT) return p;
      if (c === SLASH) {
        this.afterSlash = true;
        p++;
        continue;
      }
      if (isSpace(c)) {
        p++;
        continue;
      }
      this.afterSlash = false;
      const attrStart = p;
      const which = svAttributeAt(buf, p);
      if (which !== 0) {
        // The usual sv:name="…", sv:type="…": read as below, without the loops.
        this.lastAttrStart = attrStart;
        const close = buf.indexOf('"', p + 9);
        if (close === -1) {
          p = len;
          continue;
        }
        if (which === 1) this.svName ??= this.valueOf(buf, p + 9, close);
        // A type's name, as exports write it, is the same string each time: no slice per property.
        else this.svType ??= propertyTypeAt(buf, p + 9, close) ?? this.valueOf(buf, p + 9, close);
        p = close + 1;
        continue;
      }
      // An attribute name: up to `=`, a space, `/` or `>`.
      p++;
      while (p < len && (c = buf.charCodeAt(p)) !== EQ && !endsName(c)) p++;
      if (p >= len) continue;
      const attrEnd = p;
      this.lastAttrStart = attrStart;
      while (p < len && isSpace(buf.charCodeAt(p))) p++;
      if (p >= len) continue;
      if (buf.charCodeAt(p) !== EQ) {
        // No value (`<a b>`, `<a b c="1">`): an empty one.
        this.attribute(buf, attrStart, attrEnd, '');
        continue;
      }
      p++;
      while (p < len && isSpace(buf.charCodeAt(p))) p++;
      if (p >= len) continue;
      c = buf.charCodeAt(p);
      if (c === DQ || c === SQ) {
        const close = buf.indexOf(c === DQ ? '"' : "'", p + 1);
        if (close === -1) {
          p = len;
          continue;
        }
        this.attributeValue(buf, attrStart, attrEnd, p + 1, close);
        p = close + 1;
      } else {
        // Unquoted: up to a space or `>` (a `/` belongs to the value).
        const valueStart = p;
        while (p < len && (c = buf.charCodeAt(p)) !== GT && !isSpace(c)) p++;
        if (p >= len) continue;
        this.attributeValue(buf, attrStart, attrEnd, valueStart, p);
      }
    }
  }

  private attributeValue(buf: string, nameStart: number, nameEnd: number, start: number, end: number): void {
    if (attributeOf(buf, nameStart, nameEnd) === 0) return;
    this.attribute(buf, nameStart, nameEnd, this.valueOf(buf, start, end));
  }

  /** An attribute's value, entity-decoded. */
  private valueOf(buf: string, start: number, end: number): string {
    const raw = buf.slice(start, end);
    const amp = raw.indexOf('&');
    return amp === -1 ? raw : this.references.decodeAll(raw, amp);
  }

  private attribute(buf: string, nameStart: number, nameEnd: number, value: string): void {
    switch (attributeOf(buf, nameStart, nameEnd)) {
      case 1:
        this.svName ??= value;
        return;
      case 2:
        this.svType ??= value;
        return;
      case 3:
        this.svMultiple ??= value;
        return;
      default:
    }
  }
}
