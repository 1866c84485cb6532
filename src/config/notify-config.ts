// Config layer: what petal.yaml says about telling the world of changes: Cache-Control defaults, cache
// tags on delivery answers, CDN purge targets and webhooks (README: Cache tags and purge, Webhooks).
// Secrets are named by environment variables and read where they are used, never kept here.

/** Seconds, as the Cache-Control directives of the same names. */
export interface CacheControlConfig {
  readonly maxAge?: number;
  readonly sMaxAge?: number;
  readonly staleWhileRevalidate?: number;
  readonly staleIfError?: number;
}

/** Which header lists an answer's cache tags: Fastly's (space-separated), Cloudflare's (comma-separated), both or none. */
export type TagHeader = 'surrogate-key' | 'cache-tag' | 'both' | 'none';

export type PurgeTarget =
  | { readonly type: 'fastly'; readonly serviceId: string; readonly tokenEnv: string; readonly baseUrl?: string }
  | { readonly type: 'cloudflare'; readonly zoneId: string; readonly tokenEnv: string; readonly baseUrl?: string }
  | { readonly type: 'http'; readonly url: string; readonly secretEnv?: string };

export type WebhookEvent = 'published' | 'unpublished' | 'changed' | 'imported';

export interface WebhookConfig {
  /** Names the webhook in `petal webhooks` and keys its delivery cursor. */
  readonly name: string;
  readonly url: string;
  /** Absent: every event. */
  readonly events?: readonly WebhookEvent[];
  readonly workspaces?: readonly string[];
  readonly paths?: readonly string[];
  readonly nodeTypes?: readonly string[];
  /** The environment variable holding the signing secret. */
  readonly secretEnv: string;
  readonly timeoutMs?: number;
}

export interface CdnConfig {
  readonly tagHeader: TagHeader;
  readonly purge: readonly PurgeTarget[];
}

export const DEFAULT_CDN: CdnConfig = { tagHeader: 'none', purge: [] };

/** `metrics:` (README: Metrics). */
export interface MetricsConfig {
  readonly enabled: boolean;
  /** The environment variable holding a bearer token that may read /.metrics. */
  readonly tokenEnv?: string;
}

export interface RateLimitRule {
  readonly max: number;
  readonly windowMs: number;
}

export type RateLimitClass = 'deliveryReads' | 'queries' | 'shopWrites' | 'logins' | 'writes';

/** `rateLimit:` (README: Rate limits): the rules given (defaults are the rate limiter's). */
export interface RateLimitConfig {
  readonly enabled: boolean;
  readonly redis?: string;
  readonly rules: Partial<Readonly<Record<RateLimitClass, RateLimitRule>>>;
  /** Client addresses and CIDR ranges never counted (an SSR server, a CDN's edge ranges). */
  readonly exempt?: readonly string[];
  /** An environment variable holding a secret: requests sending it in `x-petal-rate-limit-secret` are not counted. */
  readonly exemptSecretEnv?: string;
}
