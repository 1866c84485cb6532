// HTTP layer: the shop's cart and wishlist cookies. They are scoped to the context path, not to
// /shop/v1, so that the requests of pages carry them too: server-side rendering finds the visitor's
// cart and wishlist through the templating functions (shop/shop-api.ts).
//
// Earlier releases set them with `Path=<contextPath>/shop/v1`. A browser that still holds such a
// cookie sends it first under /shop/v1 (longer paths first), where it would shadow the current one;
// so it is expired whenever a shop cookie is cleared, or set while the browser sent two of them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';

/** The `Path` of the shop cookies: the context path (`/` without one). */
export function shopCookiePath(contextPath: string): string {
  return contextPath === '' ? '/' : contextPath;
}

export class ShopCookies {
  readonly #path: string;
  readonly #legacyPath: string;
  readonly #maxAgeSeconds: number;

  constructor(o: { contextPath: string; legacyPath: string; maxAgeSeconds: number }) {
    this.#path = shopCookiePath(o.contextPath);
    this.#legacyPath = o.legacyPath;
    this.#maxAgeSeconds = o.maxAgeSeconds;
  }

  set(request: FastifyRequest, reply: FastifyReply, name: string, value: string): void {
    if (sentTwice(request, name)) reply.clearCookie(name, { path: this.#legacyPath });
    reply.setCookie(name, value, {
      path: this.#path, httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', maxAge: this.#maxAgeSeconds,
    });
  }

  clear(reply: FastifyReply, name: string): void {
    reply.clearCookie(name, { path: this.#legacyPath });
    reply.clearCookie(name, { path: this.#path });
  }
}

function sentTwice(request: FastifyRequest, name: string): boolean {
  let n = 0;
  for (const part of (request.headers.cookie ?? '').split(';')) if (part.trimStart().startsWith(`${name}=`)) n++;
  return n > 1;
}
