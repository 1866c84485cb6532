// PostgreSQL backend: full text with the semantics of SQLite's FTS5 `unicode61` tokenizer (words are
// runs of letters, digits, marks and private-use characters; case-insensitive, no stemming, `word*`
// prefixes, every word must match). PostgreSQL's own parser cuts differently (`x²` → `x`, a combining
// mark ends a word; 'simple' is only right for plain words), so the words are cut here, lower-cased,
// and stored as the lexemes themselves; the query is a tsquery of the same words, quoted, so no
// PostgreSQL parser ever sees them.
import type { StoreQuery } from '../../query/ast.js';
import { words } from '../full-text-words.js';

/** PostgreSQL's limit on one lexeme, in bytes; longer words are left out of the index. */
const MAX_LEXEME_BYTES = 2046;
/** Stay below the 1 MB limit of one tsvector. */
const MAX_BODY_BYTES = 1_000_000;

/** What the `fts.body` column holds for a node's full text: its distinct words ('' when it has none). */
export function ftsBody(text: string): string {
  const seen = new Set<string>();
  // A word takes at most 3 UTF-8 bytes per UTF-16 unit (folding keeps the length), and words are
  // separated, so the body (8 bytes counted per word) stays under 7 bytes per unit of the text: for
  // all but huge texts its limit cannot be reached, and only a long word needs its bytes counted.
  if (7 * text.length + 8 <= MAX_BODY_BYTES) {
    for (const w of words(text)) if (w.length * 3 <= MAX_LEXEME_BYTES || Buffer.byteLength(w) <= MAX_LEXEME_BYTES) seen.add(w);
    return [...seen].join(' ');
  }
  let bytes = 0;
  for (const w of words(text)) {
    if (seen.has(w)) continue;
    const size = Buffer.byteLength(w);
    if (size > MAX_LEXEME_BYTES) continue;
    if (bytes + size + 8 > MAX_BODY_BYTES) break;
    bytes += size + 8;
    seen.add(w);
  }
  return [...seen].join(' ');
}

/**
 * The tsquery text of the query's terms: `'word'` or `'word':*`, joined by `&`. The words hold letters,
 * digits and marks only (see parse-query), so quoting needs no escapes; a term FTS5 would cut in
 * several tokens is cut the same way and its tokens must follow one another (`<->`). Returns '' when
 * a term has no word, or a word longer than a lexeme
 * can be (matches nothing; such words are not indexed: a difference from SQLite, which indexes them).
 */
export function tsQueryText(q: StoreQuery): string {
  const parts: string[] = [];
  for (const t of q.fullText) {
    const w = words(t.word).map((x) => `'${x.replace(/['\\]/g, '')}'`);
    // No word, or one too long to be a lexeme (never indexed, see ftsBody): nothing matches.
    if (w.length === 0 || w.some((x) => Buffer.byteLength(x) > MAX_LEXEME_BYTES + 2)) return '';
    if (t.prefix) w[w.length - 1] = `${w[w.length - 1]}:*`;
    parts.push(w.length === 1 ? w[0]! : `(${w.join(' <-> ')})`);
  }
  return parts.join(' & ');
}
