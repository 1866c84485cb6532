// PostgreSQL backend: full text with the semantics of SQLite's FTS5 `unicode61` tokenizer (whole words
// of letters, digits and private-use characters, case-insensitive, no stemming, `word*` prefixes, all
// words must match). PostgreSQL's default parser splits on other punctuation (it keeps `a.b` as one
// host name, `a-b` as a hyphenated word, ...), so the words are cut here in JavaScript, lower-cased,
// and stored separated by spaces; 'simple' then indexes each word as it is. Query words go through
// the same cut, so both sides agree.
import type { StoreQuery } from '../../query/ast.js';

const WORD = /[\p{L}\p{N}\p{Co}]+/gu;

/** The words of `text` as FTS5's unicode61 tokenizer finds them, lower-cased. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) out.push(m[0].toLowerCase());
  return out;
}

/** What the `fts.body` column holds for a node's full text ('' when it has no word). */
export function ftsBody(text: string): string {
  return words(text).join(' ');
}

/**
 * The `to_tsquery('simple', …)` text of the query's terms: `word` or `word:*`, joined by `&`. A term
 * that FTS5 would split into several tokens (a combining mark inside it) becomes a phrase (`a <-> b`),
 * as FTS5 treats a quoted string of several tokens. Returns '' when no term has a word (matches nothing).
 */
export function tsQueryText(q: StoreQuery): string {
  const parts: string[] = [];
  for (const t of q.fullText) {
    const w = words(t.word);
    if (w.length === 0) return '';
    if (t.prefix) w[w.length - 1] = `${w[w.length - 1]}:*`;
    parts.push(w.length === 1 ? w[0]! : `(${w.join(' <-> ')})`);
  }
  return parts.join(' & ');
}
