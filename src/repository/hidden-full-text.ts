// Repository layer: `q` on an endpoint that keeps properties secret. The full-text index holds every word of a
// node, so a node may match only through a hidden property's words; such nodes are found and left out
// before the total and the page are computed, so neither reveals what the hidden values say.
import type { Condition, StoreQuery } from '../query/ast.js';
import type { QueryResult } from '../store/content-store.js';
import { fullTextOf } from '../store/index-values.js';
import { holdsTerms, words } from '../store/full-text-words.js';

/** Rows read per round trip while looking for false matches. */
const CHUNK = 500;

/**
 * `q` with the words of `q.fullTextHidden` left out: only matches that hold a hidden property can owe
 * their match to it, so those are read (in chunks, per hidden name) and checked against the words of
 * their other properties; the ones that fail are excluded by id. Costs one read of those matches.
 */
export async function withoutHiddenWordMatches(q: StoreQuery, run: (q: StoreQuery) => Promise<QueryResult>): Promise<StoreQuery> {
  const hidden = q.fullTextHidden;
  if (hidden === undefined || hidden.length === 0 || q.fullText.length === 0) return q;
  const hiddenSet = new Set(hidden);
  const checked = new Set<string>();
  const falseMatches: string[] = [];
  for (const name of hidden) {
    const suspects: StoreQuery = {
      ...q, fullTextHidden: undefined, orderBy: [], limit: CHUNK,
      conditions: [...q.conditions, { kind: 'exists', name, exists: true }],
    };
    for (let offset = 0; ; offset += CHUNK) {
      const { nodes } = await run({ ...suspects, offset });
      for (const n of nodes) {
        if (checked.has(n.id)) continue;
        checked.add(n.id);
        const text = fullTextOf(n.properties.filter((p) => !hiddenSet.has(p[0])));
        if (!holdsTerms(words(text), q.fullText)) falseMatches.push(n.id);
      }
      if (nodes.length < CHUNK) break;
    }
  }
  if (falseMatches.length === 0) return { ...q, fullTextHidden: undefined };
  const notThese: Condition = {
    kind: 'ranges', target: { kind: 'uuid' }, negate: true,
    ranges: falseMatches.map((id) => ({ kind: 'string', lo: { value: id, inclusive: true }, hi: { value: id, inclusive: true } })),
  };
  return { ...q, fullTextHidden: undefined, conditions: [...q.conditions, notThese] };
}
