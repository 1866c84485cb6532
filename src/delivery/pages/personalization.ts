// Delivery layer (pages): personalization. A node with a `variants` container (cms:componentVariants)
// is replaced by its first variant whose rule set matches the visitor's traits: the variant's
// properties and children under the original's name, `@path` and `@id`, with `@variantNodeName`
// and `@variantPath` added. Without a match the original stays. The container and the rule sets
// never appear in an answer.
import type { NodeRecord } from '../../store/rows.js';
import type { RenderRecord } from '../render-node.js';
import type { TraitValues } from './traits.js';

export const VARIANTS_CONTAINER_TYPE = 'cms:componentVariants';
const RULE_SET = 'cms:ruleSet';
/** Levels below a node that personalization reads: variants/variant-N/ruleSet/voters/voterN. */
export const PERSONALIZATION_EXTRA_DEPTH = 5;

type Index = ReadonlyMap<string, readonly NodeRecord[]>;

function prop(node: NodeRecord, name: string): NodeRecord['properties'][number][2] | undefined {
  for (const p of node.properties) if (p[0] === name) return p[2];
  return undefined;
}

function asText(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

/** One voter: a name-and-value voter on a trait, or a group of voters (`op: and|or`). */
function votes(voter: NodeRecord, index: Index, traits: TraitValues): boolean {
  const kids = index.get(voter.path) ?? [];
  const cls = asText(prop(voter, 'class')) ?? '';
  let result: boolean;
  if (prop(voter, 'traitId') !== undefined) {
    const trait = asText(prop(voter, 'traitId'))!;
    const wanted = prop(voter, 'value');
    const have = traits.get(trait);
    const values = Array.isArray(wanted) ? wanted.map(asText) : [asText(wanted)];
    result = have !== undefined && values.includes(have);
  } else if (kids.length > 0 && (cls === '' || /voting|voters|rule/i.test(cls))) {
    result = group(voter, kids, index, traits);
  } else {
    return false; // an unknown kind of voter never grants a variant
  }
  const not = prop(voter, 'not');
  return not === true || not === 'true' ? !result : result;
}

function group(holder: NodeRecord, voters: readonly NodeRecord[], index: Index, traits: TraitValues): boolean {
  if (voters.length === 0) return false;
  const op = asText(prop(holder, 'op'))?.toLowerCase();
  return op === 'or' ? voters.some((v) => votes(v, index, traits)) : voters.every((v) => votes(v, index, traits));
}

function matches(variant: NodeRecord, index: Index, traits: TraitValues): boolean {
  const ruleSet = (index.get(variant.path) ?? []).find((k) => k.name === RULE_SET);
  if (ruleSet === undefined) return false;
  const voters = (index.get(ruleSet.path) ?? []).find((k) => k.name === 'voters');
  if (voters === undefined) return false;
  return group(voters, index.get(voters.path) ?? [], index, traits);
}

/** Rows with chosen variants standing in for their originals and every variant container removed. */
export function applyVariants(rows: readonly NodeRecord[], traits: TraitValues): NodeRecord[] {
  const index = new Map<string, NodeRecord[]>();
  const containers: NodeRecord[] = [];
  for (const r of rows) {
    const list = index.get(r.parentPath);
    if (list) list.push(r);
    else index.set(r.parentPath, [r]);
    if (r.type === VARIANTS_CONTAINER_TYPE) containers.push(r);
  }
  if (containers.length === 0) return [...rows];
  for (const list of index.values()) list.sort((a, b) => a.position - b.position);

  const byPath = new Map(rows.map((r) => [r.path, r]));
  const replaced = new Map<string, RenderRecord>();
  const hidden: string[] = []; // path prefixes left out of the answer
  const kept: string[] = []; // the chosen variants (their subtrees stay, minus the rule set)
  for (const c of containers) {
    hidden.push(c.path);
    const original = byPath.get(c.parentPath);
    if (original === undefined) continue;
    const chosen = (index.get(c.path) ?? []).find((v) => matches(v, index, traits));
    if (chosen === undefined) continue;
    kept.push(chosen.path);
    replaced.set(original.path, {
      ...chosen,
      id: original.id, name: original.name, path: original.path, parentPath: original.parentPath,
      depth: original.depth, position: original.position,
      childrenOf: chosen.path,
      annotations: `,"@variantNodeName":${JSON.stringify(chosen.name)},"@variantPath":${JSON.stringify(chosen.path)}`,
    });
  }
  const out: NodeRecord[] = [];
  for (const r of rows) {
    const sub = replaced.get(r.path);
    if (sub !== undefined) {
      out.push(sub);
      continue;
    }
    if (!within(r.path, hidden)) {
      out.push(r);
      continue;
    }
    const v = kept.find((k) => r.path.startsWith(`${k}/`));
    if (v !== undefined && !r.path.startsWith(`${v}/${RULE_SET}`)) out.push(r);
  }
  return out;
}

function within(path: string, prefixes: readonly string[]): boolean {
  for (const p of prefixes) if (path === p || path.startsWith(`${p}/`)) return true;
  return false;
}
