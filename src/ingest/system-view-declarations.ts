// Ingest layer: the `<!…>` markup of a system-view export (comments, CDATA sections, declarations),
// read as htmlparser2's xmlMode tokenizer reads it, for the scanner (system-view-scanner.ts). Kept apart
// from the scanner, which cuts chunks, keeps tails across them and reads tags: these readers only say
// where a construct ends, or what kind of tail its cut leaves.
import { BANG, DASH, GT, LBRACKET } from './system-view-names.js';
import { INCOMPLETE } from './xml-references.js';

/** What the scanner's end() does with a tail left unfinished by the input's end. */
export const TAIL_NOTHING = 0, TAIL_TEXT = 1, TAIL_START_TAG = 2, TAIL_COMMENT = 3, TAIL_CDATA = 4;

/** Where a cut declaration's or comment's text would start in its tail (after `<!`). */
export const DECLARATION_TEXT_FROM = 2;
/** Where a cut CDATA section's text starts in its tail (after `<![CDATA[`). */
export const CDATA_TEXT_FROM = 9;

/** The first word of a declaration, as htmlparser2 names it. */
const NAME_END = /\s|\//;
const CDATA_OPEN = 'CDATA[';

/** A construct cut by the chunk's end, with the kind of tail it leaves: below INCOMPLETE, never a position. */
const cut = (kind: number): number => INCOMPLETE - 1 - kind;

/** The kind of tail a negative answer of readDeclaration leaves (INCOMPLETE itself: text). */
export function tailKindOf(answer: number): number {
  return answer === INCOMPLETE ? TAIL_TEXT : INCOMPLETE - 1 - answer;
}

export interface DeclarationEvents {
  text(text: string, start: number, end: number): void;
  declaration(name: string): void;
}

/**
 * Reads the `<!…>` at `lt` (`buf[lt + 1]` is `!`): the index after it, having reported a CDATA
 * section's text or a declaration's name; a negative answer when `len` cuts it (tailKindOf says what
 * the tail is).
 */
export function readDeclaration(events: DeclarationEvents, buf: string, lt: number, len: number): number {
  if (lt + 2 >= len) return cut(TAIL_NOTHING);
  const c = buf.charCodeAt(lt + 2);
  let searchFrom = lt + 3;
  if (c === DASH) {
    if (lt + 3 >= len) return INCOMPLETE;
    if (buf.charCodeAt(lt + 3) === DASH) return commentEnd(buf, lt);
    searchFrom = lt + 4;
  } else if (c === LBRACKET) {
    let m = 0;
    while (m < CDATA_OPEN.length) {
      if (lt + 3 + m >= len) return INCOMPLETE;
      if (buf.charCodeAt(lt + 3 + m) !== CDATA_OPEN.charCodeAt(m)) break;
      m++;
    }
    if (m === CDATA_OPEN.length) return cdataEnd(events, buf, lt);
    searchFrom = lt + 3 + m;
  }
  const gt = buf.indexOf('>', searchFrom);
  if (gt === -1) return INCOMPLETE;
  const value = buf.slice(lt + 2, gt);
  const end = value.search(NAME_END);
  events.declaration(`!${end < 0 ? value : value.slice(0, end)}`);
  return gt + 1;
}

function commentEnd(buf: string, lt: number): number {
  // Ends at the first `-->` or, as htmlparser2 also has it, `--!>`.
  let dashes = buf.indexOf('--', lt + 4);
  while (dashes !== -1) {
    const c = buf.charCodeAt(dashes + 2);
    const gt = c === GT ? dashes + 2 : c === BANG && buf.charCodeAt(dashes + 3) === GT ? dashes + 3 : -1;
    if (gt !== -1) return gt + 1;
    dashes = buf.indexOf('--', dashes + 1);
  }
  return cut(TAIL_COMMENT);
}

function cdataEnd(events: DeclarationEvents, buf: string, lt: number): number {
  const from = lt + CDATA_TEXT_FROM;
  const end = buf.indexOf(']]>', from);
  if (end === -1) return cut(TAIL_CDATA);
  events.text(buf, from, end);
  return end + 3;
}
