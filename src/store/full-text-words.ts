// Store layer: the words `q` matches, cut and folded as SQLite's FTS5 `unicode61` tokenizer does
// (runs of letters, digits, marks and private-use characters); every backend and check uses this cut.
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const ASCII = /^[\x00-\x7f]*$/;
const ANY = /[^]/gu;
const ASCII_WORD = /[a-z0-9]+/g;
/** One code point folded alone (no final-sigma context: FTS5 folds Σ and ς to σ), U+0130 kept. */
const fold = (c: string): string => (c === '\u0130' ? c : c === '\u03c2' ? '\u03c3' : c.toLowerCase());

/**
 * The words of `text` as FTS5's unicode61 tokenizer finds them, case-folded as it folds them: each code
 * point lower-cased alone, except U+0130 (İ), whose lower case is two code points and which FTS5 keeps.
 */
export function words(text: string): string[] {
  // ASCII text (most text): the word characters are [A-Za-z0-9] and folding is lower-casing.
  if (ASCII.test(text)) return text.toLowerCase().match(ASCII_WORD) ?? [];
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const w = m[0];
    out.push(ASCII.test(w) ? w.toLowerCase() : w.replace(ANY, fold));
  }
  return out;
}

/**
 * True when the words of a text (as `words` cuts them) hold every term: its word exactly, or as a prefix
 * when `prefix`. A term is one word (parse-query cuts `q` with the tokenizer's letter classes).
 */
export function holdsTerms(textWords: readonly string[], terms: readonly { readonly word: string; readonly prefix: boolean }[]): boolean {
  let set: Set<string> | undefined;
  for (const t of terms) {
    const w = words(t.word).join('');
    if (t.prefix ? !textWords.some((x) => x.startsWith(w)) : !(set ??= new Set(textWords)).has(w)) return false;
  }
  return true;
}
