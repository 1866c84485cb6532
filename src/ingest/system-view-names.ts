// Ingest layer: the element and attribute names of a JCR system view, recognised in place for the
// scanner (system-view-scanner.ts).
import { PROPERTY_TYPES, type PropertyType } from '../model/property-type.js';

/** The elements of a system view; anything else is OTHER (its name in `SystemViewScanner.otherName`). */
export const OTHER = 0;
export const NODE = 1;
export const PROPERTY = 2;
export const VALUE = 3;
export type Element = typeof OTHER | typeof NODE | typeof PROPERTY | typeof VALUE;

export const ELEMENT_NAMES = ['', 'sv:node', 'sv:property', 'sv:value'] as const;

export const GT = 0x3e, SLASH = 0x2f, BANG = 0x21, QUESTION = 0x3f, EQ = 0x3d;
export const DQ = 0x22, SQ = 0x27, DASH = 0x2d, LBRACKET = 0x5b, HASH = 0x23, SEMI = 0x3b;

/** XML's whitespace as htmlparser2 reads it (form feed included). */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x0c;
}

export function endsName(c: number): boolean {
  return c === GT || c === SLASH || isSpace(c);
}

// The names this scanner looks for, compared character by character from a name's start (`sv:` checked
// first): cheaper than startsWith or a slice for the million names of a large export.
function svPrefix(buf: string, at: number): boolean {
  return buf.charCodeAt(at) === 0x73 /* s */
    && buf.charCodeAt(at + 1) === 0x76 /* v */
    && buf.charCodeAt(at + 2) === 0x3a /* : */;
}

function isNode(buf: string, at: number): boolean {
  return buf.charCodeAt(at + 3) === 0x6e /* n */
    && buf.charCodeAt(at + 4) === 0x6f /* o */
    && buf.charCodeAt(at + 5) === 0x64 /* d */
    && buf.charCodeAt(at + 6) === 0x65 /* e */;
}

function isValue(buf: string, at: number): boolean {
  return buf.charCodeAt(at + 3) === 0x76 /* v */
    && buf.charCodeAt(at + 4) === 0x61 /* a */
    && buf.charCodeAt(at + 5) === 0x6c /* l */
    && buf.charCodeAt(at + 6) === 0x75 /* u */
    && buf.charCodeAt(at + 7) === 0x65 /* e */;
}

function isProperty(buf: string, at: number): boolean {
  return buf.charCodeAt(at + 3) === 0x70 /* p */
    && buf.charCodeAt(at + 4) === 0x72 /* r */
    && buf.charCodeAt(at + 5) === 0x6f /* o */
    && buf.charCodeAt(at + 6) === 0x70 /* p */
    && buf.charCodeAt(at + 7) === 0x65 /* e */
    && buf.charCodeAt(at + 8) === 0x72 /* r */
    && buf.charCodeAt(at + 9) === 0x74 /* t */
    && buf.charCodeAt(at + 10) === 0x79 /* y */;
}

function isName(buf: string, at: number): boolean {
  return buf.charCodeAt(at + 3) === 0x6e /* n */
    && buf.charCodeAt(at + 4) === 0x61 /* a */
    && buf.charCodeAt(at + 5) === 0x6d /* m */
    && buf.charCodeAt(at + 6) === 0x65 /* e */;
}

function isType(buf: string, at: number): boolean {
  return buf.charCodeAt(at + 3) === 0x74 /* t */
    && buf.charCodeAt(at + 4) === 0x79 /* y */
    && buf.charCodeAt(at + 5) === 0x70 /* p */
    && buf.charCodeAt(at + 6) === 0x65 /* e */;
}

function isMultiple(buf: string, at: number): boolean {
  return buf.charCodeAt(at + 3) === 0x6d /* m */
    && buf.charCodeAt(at + 4) === 0x75 /* u */
    && buf.charCodeAt(at + 5) === 0x6c /* l */
    && buf.charCodeAt(at + 6) === 0x74 /* t */
    && buf.charCodeAt(at + 7) === 0x69 /* i */
    && buf.charCodeAt(at + 8) === 0x70 /* p */
    && buf.charCodeAt(at + 9) === 0x6c /* l */
    && buf.charCodeAt(at + 10) === 0x65 /* e */;
}

/** 1 for `sv:name="` at `at`, 2 for `sv:type="`, else 0. */
export function svAttributeAt(buf: string, at: number): number {
  if (!svPrefix(buf, at) || buf.charCodeAt(at + 7) !== EQ || buf.charCodeAt(at + 8) !== DQ) return 0;
  return isName(buf, at) ? 1 : isType(buf, at) ? 2 : 0;
}

/** The property type written exactly as `buf.slice(start, end)` (`sv:type="Long"`), or undefined. */
export function propertyTypeAt(buf: string, start: number, end: number): PropertyType | undefined {
  const length = end - start;
  for (const type of PROPERTY_TYPES) if (type.length === length && buf.startsWith(type, start)) return type;
  return undefined;
}

/** The end of sv:node, sv:property or sv:value written at `at` and ended there (by a space, `/` or `>`), or -1. */
export function knownNameEnd(buf: string, at: number): number {
  if (!svPrefix(buf, at)) return -1;
  let end: number;
  switch (buf.charCodeAt(at + 3)) {
    case 0x76 /* v */:
      end = isValue(buf, at) ? at + 8 : -1;
      break;
    case 0x70 /* p */:
      end = isProperty(buf, at) ? at + 11 : -1;
      break;
    case 0x6e /* n */:
      end = isNode(buf, at) ? at + 7 : -1;
      break;
    default:
      return -1;
  }
  return end !== -1 && endsName(buf.charCodeAt(end)) ? end : -1;
}

/** The element of a name knownNameEnd found, by its length. */
export function byLength(length: number): Element {
  return length === 7 ? NODE : length === 8 ? VALUE : PROPERTY;
}

export function elementAt(buf: string, start: number, end: number): Element {
  if (!svPrefix(buf, start)) return OTHER;
  switch (end - start) {
    case 7:
      return isNode(buf, start) ? NODE : OTHER;
    case 11:
      return isProperty(buf, start) ? PROPERTY : OTHER;
    case 8:
      return isValue(buf, start) ? VALUE : OTHER;
    default:
      return OTHER;
  }
}

/** 1 sv:name, 2 sv:type, 3 sv:multiple, 0 any other attribute. */
export function attributeOf(buf: string, start: number, end: number): number {
  if (!svPrefix(buf, start)) return 0;
  switch (end - start) {
    case 7:
      return isName(buf, start) ? 1 : isType(buf, start) ? 2 : 0;
    case 11:
      return isMultiple(buf, start) ? 3 : 0;
    default:
      return 0;
  }
}
