// Config layer: the CORS rules a light module's site definition declares (`site.cors.<name>` with
// `uris.<x>.patternString`, `allowedOrigins`, `allowedMethods`, `allowedHeaders`, `exposedHeaders`,
// `supportsCredentials`, `maxAge`, as the original's CORS filter reads them). Parsed once here; what
// cannot be honoured safely is reported, never silently widened.

export interface SiteCorsRule {
  readonly name: string;
  /** Paths below the context path, `*` matching any run of characters (`/.rest/*`). */
  readonly patterns: readonly string[];
  /** `*`: any origin, answered without credentials. */
  readonly origins: '*' | readonly string[];
  readonly methods: '*' | readonly string[];
  readonly headers: '*' | readonly string[];
  readonly exposedHeaders: readonly string[];
  /** Only with listed origins: credentials are never sent to `*`. */
  readonly credentials: boolean;
  readonly maxAge?: number;
}

type Obj = Record<string, unknown>;

function asObj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

/** The strings of a list or of a map's values (the original writes lists as maps: `all: '*'`). */
function strings(v: unknown): string[] {
  const list = Array.isArray(v) ? v : asObj(v) !== undefined ? Object.values(v as Obj) : v === undefined ? [] : [v];
  return list.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
}

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/i;
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i;

export function parseSiteCors(site: string, cors: unknown): { rules: SiteCorsRule[]; problems: string[] } {
  const rules: SiteCorsRule[] = [];
  const problems: string[] = [];
  const all = asObj(cors);
  if (all === undefined) {
    if (cors !== undefined) problems.push(`site ${site}: cors must be a map of named rules; ignored`);
    return { rules, problems };
  }
  for (const [name, value] of Object.entries(all)) {
    const where = `site ${site}: cors.${name}`;
    const def = asObj(value);
    if (def === undefined) {
      problems.push(`${where} is not a map; ignored`);
      continue;
    }
    const patterns = Object.values(asObj(def.uris) ?? {})
      .map((u) => asObj(u)?.patternString)
      .filter((p): p is string => typeof p === 'string' && p.startsWith('/'));
    if (patterns.length === 0) {
      problems.push(`${where} has no uris.<name>.patternString starting with /; ignored`);
      continue;
    }
    const originList = strings(def.allowedOrigins).map((o) => (o.length > 1 ? o.replace(/\/$/, '') : o));
    const anyOrigin = originList.includes('*');
    const origins = originList.filter((o) => o !== '*' && ORIGIN.test(o)).map((o) => o.toLowerCase());
    for (const o of originList) {
      if (o !== '*' && !ORIGIN.test(o)) problems.push(`${where}: allowed origin ${JSON.stringify(o)} is no scheme://host[:port]; ignored`);
    }
    if (!anyOrigin && origins.length === 0) {
      problems.push(`${where} allows no origin; ignored`);
      continue;
    }
    const credentials = def.supportsCredentials === true || def.supportsCredentials === 'true';
    if (credentials && anyOrigin) {
      problems.push(`${where}: supportsCredentials with allowed origin '*' would let any site read answers with a visitor's cookies; answered without credentials`);
    }
    const methodList = strings(def.allowedMethods).map((m) => m.toUpperCase());
    const headerList = strings(def.allowedHeaders);
    const maxAge = Number(def.maxAge);
    rules.push({
      name,
      patterns,
      origins: anyOrigin ? '*' : origins,
      methods: methodList.length === 0 || methodList.includes('*') ? '*' : methodList.filter((m) => TOKEN.test(m)),
      headers: headerList.includes('*') ? '*' : headerList.filter((h) => TOKEN.test(h)),
      exposedHeaders: strings(def.exposedHeaders).filter((h) => TOKEN.test(h)),
      credentials: credentials && !anyOrigin,
      ...(def.maxAge !== undefined && Number.isInteger(maxAge) && maxAge >= 0 ? { maxAge } : {}),
    });
  }
  return { rules, problems };
}
