// Delivery layer: which properties a response shows, from the endpoint's and the request's property
// lists and the system-property settings (SPEC.md "Rules for property lists").
import { isSystemName, toCanonicalName } from '../model/names.js';

export interface PropertyListSettings {
  readonly properties?: readonly string[];
  readonly excludeProperties?: readonly string[];
  readonly includeSystemProperties: boolean;
  readonly systemProperties?: readonly string[];
}

export type Visibility = (name: string) => boolean;

/**
 * The canonical names an endpoint's definition keeps from every caller: its `excludeProperties`, unless
 * its own `properties` list is configured too (SPEC.md rule 4 then ignores them); null when none. No
 * query string may reveal them: not `properties`, nor filters, `orderBy` or `q` (see hide-excluded.ts).
 */
export function definitionExclusions(endpoint: PropertyListSettings): ReadonlySet<string> | null {
  if (endpoint.properties !== undefined || (endpoint.excludeProperties ?? []).length === 0) return null;
  return new Set(endpoint.excludeProperties!.map(toCanonicalName));
}

/**
 * Compiles the rule set into a predicate over canonical property names:
 * - `jcr:`/`cms:` properties are candidates only with `includeSystemProperties` or when named in
 *   `systemProperties`;
 * - `properties` from the definition and the request intersect; `excludeProperties` concatenate;
 * - when an include list is in effect, the request's exclusions are ignored; the definition's are
 *   ignored only for its own include list (rule 4 applies to each place's own lists): a request's
 *   `properties` never brings back what the definition excludes;
 * - a property named in `systemProperties` passes the include list (it was asked for explicitly).
 */
export function compileVisibility(
  endpoint: PropertyListSettings,
  request?: { properties?: readonly string[]; excludeProperties?: readonly string[] },
): Visibility {
  const systemSet = new Set((endpoint.systemProperties ?? []).map(toCanonicalName));
  const includeSystem = endpoint.includeSystemProperties;

  let include: Set<string> | null = null;
  if (endpoint.properties !== undefined) include = new Set(endpoint.properties.map(toCanonicalName));
  if (request?.properties !== undefined) {
    const req = new Set(request.properties.map(toCanonicalName));
    include = include === null ? req : new Set([...include].filter((n) => req.has(n)));
  }
  const secret = definitionExclusions(endpoint);
  let exclude: Set<string> | null = null;
  if (include === null) {
    const ex = [...(endpoint.excludeProperties ?? []), ...(request?.excludeProperties ?? [])];
    if (ex.length > 0) exclude = new Set(ex.map(toCanonicalName));
  }

  const cache = new Map<string, boolean>();
  return (name) => {
    let v = cache.get(name);
    if (v !== undefined) return v;
    const system = isSystemName(name);
    if (secret !== null && secret.has(name)) v = false;
    else if (system && !includeSystem && !systemSet.has(name)) v = false;
    else if (include !== null) v = include.has(name) || (system && systemSet.has(name));
    else if (exclude !== null) v = !exclude.has(name);
    else v = true;
    cache.set(name, v);
    return v;
  };
}
