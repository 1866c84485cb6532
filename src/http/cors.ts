// HTTP layer: CORS for front ends served from other origins (petal.yaml `cors.origins`). Preflights are
// answered before authentication (browsers send them without credentials); a listed origin is echoed,
// with credentials (cookies of the shop and of sessions), never `*`. Without origins nothing is
// registered, so the hot path pays nothing.
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SiteCorsRule } from '../config/site-cors.js';
import { compileGlob, type Glob } from '../security/uri-permissions.js';

/** Headers a script on another origin may read: validators, language, tracing and the shop's own. */
export const CORS_EXPOSED_HEADERS = ['ETag', 'Content-Language', 'X-Request-Id', 'Deprecation', 'Idempotent-Replayed', 'Retry-After'];

/** How long a browser may reuse a preflight answer (seconds). */
export const CORS_MAX_AGE = 600;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];

/**
 * `origins` (petal.yaml) are answered with credentials on every path; the site's rules (its light
 * module's `cors`) on the paths they name, `*` without credentials. Site rules are read per request
 * from `siteRules`, so a reloaded site definition takes effect; they are looked at only when the
 * origin is not one of `origins`.
 */
export async function registerCors(
  app: FastifyInstance,
  origins: readonly string[],
  site?: { readonly rules: () => readonly SiteCorsRule[]; readonly contextPath: string },
): Promise<void> {
  const common = { exposedHeaders: CORS_EXPOSED_HEADERS, maxAge: CORS_MAX_AGE, strictPreflight: false };
  if (site === undefined || site.rules().length === 0) {
    if (origins.length === 0) return;
    // Any OPTIONS is a preflight to answer (204), not a 400 in plain text.
    await app.register(fastifyCors, { ...common, origin: [...origins], credentials: true, methods: METHODS });
    return;
  }
  const listed = new Set(origins);
  const delegator = (request: FastifyRequest, done: (err: Error | null, options: FastifyCorsOptions) => void): void => {
    const origin = request.headers.origin;
    if (origin === undefined) return done(null, { origin: false });
    if (listed.has(origin)) return done(null, { ...common, origin, credentials: true, methods: METHODS });
    const rule = siteRuleFor(site.rules(), origin, pathBelow(request.raw.url ?? '/', site.contextPath));
    if (rule === undefined) return done(null, { origin: false });
    return done(null, {
      ...common,
      origin: rule.origins === '*' ? '*' : origin,
      credentials: rule.credentials,
      methods: rule.methods === '*' ? METHODS : [...rule.methods],
      // null reflects the headers the preflight asks for.
      ...(rule.headers === '*' ? {} : { allowedHeaders: [...rule.headers] }),
      exposedHeaders: [...CORS_EXPOSED_HEADERS, ...rule.exposedHeaders],
      ...(rule.maxAge !== undefined ? { maxAge: rule.maxAge } : {}),
    });
  };
  await app.register(fastifyCors, { delegator });
}

function pathBelow(target: string, contextPath: string): string {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (contextPath === '') return path;
  return path.startsWith(contextPath + '/') ? path.slice(contextPath.length) : '';
}

/** A rule's path patterns, compiled once (`*` = any run, as URI permissions read them). */
const globs = new WeakMap<SiteCorsRule, readonly Glob[]>();
function globsOf(rule: SiteCorsRule): readonly Glob[] {
  let g = globs.get(rule);
  if (g === undefined) globs.set(rule, (g = rule.patterns.map(compileGlob)));
  return g;
}

function siteRuleFor(rules: readonly SiteCorsRule[], origin: string, path: string): SiteCorsRule | undefined {
  if (path === '') return undefined;
  const lower = origin.toLowerCase();
  return rules.find((r) => (r.origins === '*' || r.origins.includes(lower)) && globsOf(r).some((g) => g.matches(path)));
}
