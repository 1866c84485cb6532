// HTTP layer: the request gate. Canonicalizes the path once (the router uses the same string),
// identifies the caller, and applies the URI permissions and the CSRF rule before any route runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import type { CanonicalPaths } from './canonical-paths.js';
import { isSameOrAllowedOrigin } from '../security/csrf.js';
import { SESSION_COOKIE, type Caller, type Identification, type Refusal, type SecurityService } from '../security/security-service.js';
import { sendError, sendUnavailable } from './error-handler.js';
import { isPreviewRequest, mayPreview } from './content-state.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The canonical, decoded path (context path removed) that routing and permissions both use. */
    canonicalPath: string;
    caller: Caller;
  }
}

/** Routes of the authentication itself: reachable by anyone, they do their own checks. */
export const AUTH_PREFIX = '/.auth/';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export function challenge(reply: FastifyReply): FastifyReply {
  return reply.header('www-authenticate', 'Basic realm="Petal", charset="UTF-8"');
}

export const HEALTH_PATH = '/.health';
/** 401 for wrong credentials, 429 for a throttled client, 503 when too many password checks are in flight. */
export function sendRefusal(reply: FastifyReply, refusal: Refusal, wrongCredentials: string): FastifyReply {
  if (refusal.retryAfter !== undefined) reply.header('retry-after', String(refusal.retryAfter));
  if (refusal.busy === true) return sendUnavailable(reply, 'Too many sign-ins are being checked; try again shortly');
  if (refusal.retryAfter !== undefined) return sendError(reply, 'tooManyRequests');
  return sendError(challenge(reply), 'notAuthorized', wrongCredentials);
}

export function registerSecurityHook(
  app: FastifyInstance,
  security: SecurityService,
  o: {
    contextPath: string; corsOrigins: readonly string[]; maxUrlLength: number;
    /** Publishing on: the roles that may read under the preview context path. */
    previewRoles?: readonly string[];
    /** True for a request that carries its path's own credential (the metrics scrape token): no other check. */
    ownCredential?: (path: string, authorization: string | undefined) => boolean;
    /** The app's memo of canonical paths (shared with cached-hits.ts). */
    canonicalPaths: CanonicalPaths;
  },
): void {
  app.decorateRequest('canonicalPath', '');
  app.decorateRequest('caller', null as unknown as Caller);
  /** After the caller is known: the auth routes, the preview roles, the URI rule and the CSRF rule. */
  const admit = (request: FastifyRequest, reply: FastifyReply, cp: string, sessionId: string | undefined, id: Identification): void => {
    if (!id.ok) {
      sendRefusal(reply, id, 'The credentials are not valid');
      return;
    }
    request.caller = id.caller;
    if (sessionId !== undefined && id.caller.via !== 'session' && request.headers.authorization === undefined) {
      reply.clearCookie(SESSION_COOKIE, { path: '/' }); // a stale session cookie: forget it
    }
    if (cp.startsWith(AUTH_PREFIX)) return;
    // The working content: only for preview roles, before any URI rule or route can answer from it.
    if (o.previewRoles !== undefined && isPreviewRequest(request.raw) && !mayPreview(id.caller.roles, o.previewRoles)) {
      if (id.caller.via === 'anonymous') sendError(challenge(reply), 'notAuthorized', 'The preview needs a signed-in caller with a preview role');
      else sendError(reply, 'accessDenied', 'Your roles do not allow the preview');
      return;
    }
    if (security.uriAccess(id.caller).decide(cp, request.method) === 'deny') {
      if (id.caller.via === 'anonymous') sendError(challenge(reply), 'notAuthorized', 'Authentication is required for this URL');
      else sendError(reply, 'accessDenied', 'Your roles do not allow this URL');
      return;
    }
    if (id.caller.via === 'session' && !SAFE_METHODS.has(request.method)
      && !isSameOrAllowedOrigin(request.headers, o.corsOrigins)) {
      sendError(reply, 'accessDenied', 'Cross-site request refused (check Origin)');
    }
  };

  /** Decides the request (a refusal is sent); a promise only while credentials are being checked. */
  const gate = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    if (reply.sent) return undefined;
    reply.header('x-request-id', request.id);
    if ((request.raw.url ?? '').length > o.maxUrlLength) {
      sendError(reply, 'uriTooLong');
      return undefined;
    }
    // Probes need no credentials and health reveals nothing: `/.health` answers at the root and under
    // the context path, whatever the roles say.
    const target = request.raw.url ?? '/';
    const pathOnly = target.indexOf('?') === -1 ? target : target.slice(0, target.indexOf('?'));
    if (pathOnly === HEALTH_PATH || pathOnly === o.contextPath + HEALTH_PATH) {
      request.canonicalPath = HEALTH_PATH;
      request.caller = security.anonymous();
      return undefined;
    }
    const cp = o.canonicalPaths.of(target);
    if (!cp.ok) {
      if (cp.reason === 'outside context path') sendError(reply, 'notFound', 'No route for this URL');
      else sendError(reply, 'badRequest', `Malformed path: ${cp.reason}`);
      return undefined;
    }
    request.canonicalPath = cp.path;
    if (o.ownCredential?.(cp.path, request.headers.authorization) === true) {
      request.caller = security.anonymous();
      return undefined;
    }
    const sessionId = request.cookies?.[SESSION_COOKIE];
    const authorization = request.headers.authorization;
    // Most requests carry no credentials: their caller is the shared anonymous one, without a promise.
    if (authorization === undefined && sessionId === undefined) {
      admit(request, reply, cp.path, undefined, { ok: true, caller: security.anonymous() });
      return undefined;
    }
    return security.identify({
      ...(authorization !== undefined ? { authorization } : {}),
      ...(sessionId !== undefined ? { sessionId } : {}),
      client: request.ip,
    }).then((id) => admit(request, reply, cp.path, sessionId, id));
  };

  // A callback hook: a request decided at once (anonymous, refused) costs no promise.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const pending = gate(request, reply);
    if (pending === undefined) done();
    else pending.then(() => done(), done);
  });
}
