// HTTP layer: reads a visitor's personalization traits from the request (a header, a cookie or a
// query parameter named like the trait), for personalized endpoints.
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import type { TraitDefinition, TraitValues } from '../delivery/pages/traits.js';

// A trait value longer than this is not a trait value (and would bloat cache keys).
const MAX_TRAIT_LENGTH = 256;

function one(v: unknown): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.length <= MAX_TRAIT_LENGTH ? s : undefined;
}

export function traitValuesOf(traits: readonly TraitDefinition[], request: FastifyRequest): TraitValues {
  const out = new Map<string, string>();
  for (const t of traits) {
    let v: string | undefined;
    if (t.source === 'header') v = one(request.headers[t.name.toLowerCase()]);
    else if (t.source === 'cookie') v = one(request.cookies?.[t.name]);
    else v = one((request.query as Record<string, unknown>)[t.name]);
    if (v !== undefined) out.set(t.name, v);
  }
  return out;
}

/** The traits as one cache-key part; JSON keeps values with separators apart. */
export function traitKey(values: TraitValues): string {
  return values.size === 0 ? '' : JSON.stringify([...values]);
}
