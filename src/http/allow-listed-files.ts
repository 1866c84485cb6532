// HTTP layer: the files of a page Petal serves from its own dependencies (the API explorer, GraphiQL):
// a fixed allow-list by name, so no request names a path on disk; each read on first use (bundles of
// megabytes most processes never serve), then kept with its ETag; cached by browsers for a day.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-handler.js';
import { etagOf, ifNoneMatchHits } from './etag.js';

export interface AllowListedFile {
  /** Content-Type. */
  readonly type: string;
  readonly load: () => Buffer;
}

export interface AllowListedFiles {
  /** The route below which the files are served (`${base}/:file`). */
  readonly base: string;
  readonly files: ReadonlyMap<string, AllowListedFile>;
  /** What the 404 calls them (`No <label> file "x"`). */
  readonly label: string;
  /** The page's security headers (its Content-Security-Policy and the rest). */
  readonly secure: (reply: FastifyReply) => FastifyReply;
}

export function registerAllowListedFiles(app: FastifyInstance, o: AllowListedFiles): void {
  const loaded = new Map<string, { readonly body: Buffer; readonly etag: string }>();
  app.get(`${o.base}/:file`, async (request: FastifyRequest<{ Params: { file: string } }>, reply: FastifyReply) => {
    const name = request.params.file;
    const file = o.files.get(name);
    if (file === undefined) return sendError(reply, 'notFound', `No ${o.label} file ${JSON.stringify(name)}`);
    let hit = loaded.get(name);
    if (hit === undefined) {
      const body = file.load();
      loaded.set(name, (hit = { body, etag: etagOf(body) }));
    }
    o.secure(reply).header('cache-control', 'public, max-age=86400').header('etag', hit.etag);
    if (ifNoneMatchHits(request.headers['if-none-match'], hit.etag)) return reply.code(304).send();
    return reply.type(file.type).send(hit.body);
  });
}
