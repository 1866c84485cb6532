// HTTP layer: which content a request reads when publishing is on. The same routes serve both states:
// under `contextPath` the published content, under `publishing.preview.contextPath` the working content.
// A preview request's URL is rewritten to the public form before routing (one set of routes, one
// canonical path for the URI permissions), and marked, so that the security hook asks for a preview
// role and the routes read the working content and keep the answer out of every shared cache.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ContentState } from '../repository/session.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The content this request reads: `working` when publishing is off, or under the preview context path. */
    contentState: ContentState;
  }
}

/** What the HTTP layer needs of petal.yaml `publishing` (absent = off). */
export interface PublishingOptions {
  readonly previewContextPath: string;
  /** Roles that may read the preview; `anonymous` lets callers without credentials in. */
  readonly previewRoles: readonly string[];
  /** How far ahead a publication may be scheduled (days; publishing/publication-date.ts has the default). */
  readonly scheduleHorizonDays?: number;
}

const PREVIEW = Symbol('petal.preview');
const REQUESTED = Symbol('petal.requestedUrl');

/** Answers of the working content under publishing: for the caller alone, kept by no cache. */
export const PREVIEW_CACHE_CONTROL = 'private, no-store';

type MarkedRequest = IncomingMessage & { [PREVIEW]?: true; [REQUESTED]?: string };

/** True when the request came in under the preview context path (decided before routing). */
export function isPreviewRequest(raw: IncomingMessage): boolean {
  return (raw as MarkedRequest)[PREVIEW] === true;
}

/** The URL as the client sent it: a preview request's is rewritten before routing (logs and messages say what was asked). */
export function requestedUrl(raw: IncomingMessage): string {
  return (raw as MarkedRequest)[REQUESTED] ?? raw.url ?? '/';
}

/** What the request log calls the state served: undefined when publishing is off (one state only). */
export function servedState(request: FastifyRequest, publishing: boolean): 'live' | 'preview' | undefined {
  if (!publishing) return undefined;
  return request.contentState === 'published' ? 'live' : 'preview';
}

/**
 * Fastify's `rewriteUrl`: `/preview/x?y` → `{contextPath}/x?y`, marked as a preview. Only the exact
 * raw prefix counts; an encoded or doubled variant is not the preview and is routed (and refused) as
 * any other unknown path.
 */
export function previewRewrite(previewContextPath: string, contextPath: string): (req: IncomingMessage) => string {
  const prefix = previewContextPath;
  return (req) => {
    const url = req.url ?? '/';
    if (!url.startsWith(prefix)) return url;
    const next = url.charCodeAt(prefix.length);
    // The prefix must end at a segment boundary: `/previewer` is not under `/preview`.
    if (url.length !== prefix.length && next !== 0x2f && next !== 0x3f) return url;
    (req as MarkedRequest)[PREVIEW] = true;
    (req as MarkedRequest)[REQUESTED] = url;
    const rest = url.slice(prefix.length);
    return contextPath + (rest === '' || rest.startsWith('?') ? `/${rest}` : rest);
  };
}

/** Sets `request.contentState` on every request: published under the public path when publishing is on. */
export function registerContentState(app: FastifyInstance, publishing: PublishingOptions | undefined): void {
  app.decorateRequest('contentState', 'working');
  if (publishing === undefined) return;
  // A callback hook: no promise per request.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    request.contentState = isPreviewRequest(request.raw) ? 'working' : 'published';
    done();
  });
}

/** A preview caller must hold one of the preview roles (anonymous callers hold the anonymous roles). */
export function mayPreview(roles: readonly string[], previewRoles: readonly string[]): boolean {
  return roles.some((r) => previewRoles.includes(r));
}
