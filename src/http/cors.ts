// HTTP layer: CORS for front ends served from other origins (petal.yaml `cors.origins`). Preflights are
// answered before authentication (browsers send them without credentials); a listed origin is echoed,
// with credentials (cookies of the shop and of sessions), never `*`. Without origins nothing is
// registered, so the hot path pays nothing.
import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Headers a script on another origin may read: validators, language, tracing and the shop's own. */
export const CORS_EXPOSED_HEADERS = ['ETag', 'Content-Language', 'X-Request-Id', 'Deprecation', 'Idempotent-Replayed', 'Retry-After'];

/** How long a browser may reuse a preflight answer (seconds). */
export const CORS_MAX_AGE = 600;

export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(fastifyCors, {
    origin: [...origins],
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE,
    // Any OPTIONS is a preflight to answer (204), not a 400 in plain text.
    strictPreflight: false,
  });
}
