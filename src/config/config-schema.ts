// Config layer: the shape of petal.yaml (every key optional), validated with zod.
import { z } from 'zod';

/** True for a serialized origin (`https://host[:port]`), what browsers send in `Origin`. */
function isOrigin(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === text;
  } catch {
    return false;
  }
}

const stringList = z.union([z.string(), z.array(z.string())]).transform((v) => (typeof v === 'string' ? [v] : v));

export const siteSchema = z.strictObject({
  locales: z.array(z.string().min(1)).min(1).optional(),
  defaultLocale: z.string().min(1).optional(),
  theme: z.string().optional(),
});

export const configSchema = z.strictObject({
  store: z.string().min(1).optional(),
  /** Read replicas of a PostgreSQL store: reads go to them, writes and read-after-write to `store`. */
  replicas: z.array(z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')).optional(),
  modules: stringList.optional(),
  content: stringList.optional(),
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  namespace: z.enum(['cms', 'mgnl']).optional(),
  baseUrl: z.url().optional(),
  contextPath: z.string().regex(/^(\/[^/]+)*$/, 'must be empty or start with / and not end with /').optional(),
  sites: z.record(z.string(), siteSchema).optional(),
  links: z.strictObject({
    extension: z.string().regex(/^(\.[\w-]+)?$/, 'must be empty or like .html').optional(),
    mappings: z.record(z.string().regex(/^\//), z.string().regex(/^\//)).optional(),
  }).optional(),
  cors: z.strictObject({
    origins: z.array(z.string().refine(isOrigin, 'must be an origin such as https://www.example.com (scheme, host, port; no path, no *)')).default([]),
  }).optional(),
  /** Behind a reverse proxy that terminates TLS: trust X-Forwarded-* (secure cookies, client address). */
  trustProxy: z.boolean().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  timeZone: z.string().optional(),
  onUuidCollision: z.enum(['new', 'replace', 'fail']).optional(),
  /** Extra node types and their super types, e.g. `{ 'cms:product': ['cms:content'] }`. */
  nodeTypes: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
  // Sections filled in by later capabilities; accepted now so one file works across versions.
  security: z.record(z.string(), z.unknown()).optional(),
  /**
   * Memory budgets in bytes: `maxBytes` the rendered delivery answers (0 turns it off),
   * `subtreeMaxBytes` the decoded subtree reads (0 turns it off), `queryIndexMaxBytes` what the query
   * index keeps per property name, condition and result row (at least 1 MiB).
   */
  cache: z.strictObject({
    maxBytes: z.number().int().min(0).optional(),
    subtreeMaxBytes: z.number().int().min(0).optional(),
    queryIndexMaxBytes: z.number().int().min(1024 * 1024).optional(),
  }).optional(),
  pages: z.strictObject({ allEndpoints: z.boolean().optional() }).optional(),
  limits: z.record(z.string(), z.unknown()).optional(),
});

export type RawConfig = z.infer<typeof configSchema>;
