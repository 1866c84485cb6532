// Ingest layer: XML's character and predefined entity references, read in place as htmlparser2's strict
// decoding reads them (system-view-scanner.ts).
import { HASH, SEMI } from './system-view-names.js';

/** Not a reference; a reference cut by the end of the input. */
export const NO_ENTITY = 0;
export const INCOMPLETE = -1;

export class XmlReferences {
  /** Decodes the references in an attribute value; one not recognised (or not ended by `;`) stays as written. */
  decodeAll(raw: string, amp: number): string {
    let out = '';
    let from = 0;
    while (amp !== -1) {
      const consumed = this.at(raw, amp, raw.length);
      if (consumed > 0) {
        out += raw.slice(from, amp) + this.decoded;
        from = amp + consumed;
        amp = raw.indexOf('&', from);
      } else {
        amp = raw.indexOf('&', amp + 1);
      }
    }
    return out + raw.slice(from);
  }

  /** The character of the last reference `entityAt` read. */
  decoded = '';

  /**
   * A character or predefined entity reference at `amp`, as XML (and htmlparser2's strict decoding)
   * reads it: its length, NO_ENTITY when it is none, INCOMPLETE when `end` cuts it.
   */
  at(buf: string, amp: number, end: number): number {
    let p = amp + 1;
    if (p >= end) return INCOMPLETE;
    let c = buf.charCodeAt(p);
    if (c === HASH) {
      p++;
      if (p >= end) return INCOMPLETE;
      let hex = false;
      if ((buf.charCodeAt(p) | 0x20) === 0x78) {
        hex = true;
        p++;
      }
      const digitsStart = p;
      let cp = 0;
      for (; p < end; p++) {
        c = buf.charCodeAt(p);
        let digit = c - 0x30;
        if (digit >>> 0 > 9) {
          if (!hex) break;
          digit = (c | 0x20) - 0x61;
          if (digit >>> 0 > 5) break;
          digit += 10;
        }
        // Past U+10FFFF the value only needs to stay out of range.
        cp = Math.min(cp * (hex ? 16 : 10) + digit, 0x110000);
      }
      if (p >= end) return INCOMPLETE;
      if (p === digitsStart || c !== SEMI) return NO_ENTITY;
      this.decoded = String.fromCodePoint(cp === 0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ? 0xfffd : cp);
      return p + 1 - amp;
    }
    let name: string;
    let char: string;
    switch (c) {
      case 0x61: // a
        if (p + 1 >= end) return INCOMPLETE;
        if (buf.charCodeAt(p + 1) === 0x6d) {
          name = 'amp;';
          char = '&';
        } else {
          name = 'apos;';
          char = "'";
        }
        break;
      case 0x67: // g
        name = 'gt;';
        char = '>';
        break;
      case 0x6c: // l
        name = 'lt;';
        char = '<';
        break;
      case 0x71: // q
        name = 'quot;';
        char = '"';
        break;
      default:
        return NO_ENTITY;
    }
    for (let k = 1; k < name.length; k++) {
      if (p + k >= end) return INCOMPLETE;
      if (buf.charCodeAt(p + k) !== name.charCodeAt(k)) return NO_ENTITY;
    }
    this.decoded = char;
    return name.length + 1;
  }
}
