// HTTP layer: login (form fields `mgnlUserId`/`mgnlUserPSWD`, as the original CMS's login form posts,
// or JSON), logout and "who am I". Login always issues a new session id (no fixation).
import { parse as parseQueryString } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import { isSameOrAllowedOrigin } from '../../security/csrf.js';
import { SESSION_COOKIE, type SecurityService } from '../../security/security-service.js';
import { sendError } from '../error-handler.js';
import { sendRefusal } from '../security-hook.js';

function field(body: unknown, ...names: string[]): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  for (const n of names) {
    const v = (body as Record<string, unknown>)[n];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  }
  return undefined;
}

export function registerAuthRoutes(
  app: FastifyInstance,
  security: SecurityService,
  o: { contextPath: string; corsOrigins: readonly string[] },
): void {
  // The login form posts application/x-www-form-urlencoded (a null-prototype object: no pollution).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parseQueryString(body as string));
  });

  const base = `${o.contextPath}/.auth`;
  app.post(`${base}/login`, async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isSameOrAllowedOrigin(request.headers, o.corsOrigins)) {
      return sendError(reply, 'accessDenied', 'Cross-site login refused (check Origin)');
    }
    const user = field(request.body, 'mgnlUserId', 'username');
    const password = field(request.body, 'mgnlUserPSWD', 'password');
    if (user === undefined || password === undefined || user === '') {
      return sendError(reply, 'badRequest', 'mgnlUserId and mgnlUserPSWD are required');
    }
    const result = await security.checkPassword(user, password, request.ip);
    if (!result.ok) return sendRefusal(reply, result, 'Invalid user name or password');
    const old = request.cookies?.[SESSION_COOKIE];
    if (old !== undefined) security.sessions.destroy(old);
    const session = security.sessions.create(user, result.passwordId);
    reply.setCookie(SESSION_COOKIE, session.id, {
      path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https',
      maxAge: security.config.session.absoluteHours * 3600,
    });
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8')
      .send(JSON.stringify({ user }));
  });

  app.post(`${base}/logout`, async (request: FastifyRequest, reply: FastifyReply) => {
    const id = request.cookies?.[SESSION_COOKIE];
    if (id !== undefined) {
      if (request.caller.via === 'session' && !isSameOrAllowedOrigin(request.headers, o.corsOrigins)) {
        return sendError(reply, 'accessDenied', 'Cross-site logout refused (check Origin)');
      }
      security.sessions.destroy(id);
    }
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8')
      .send('{"status":"logged out"}');
  });

  app.get(`${base}/me`, async (request: FastifyRequest, reply: FastifyReply) => {
    const c = request.caller;
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8')
      .send(JSON.stringify({ user: c.user ?? null, roles: c.roles, via: c.via }));
  });
}
