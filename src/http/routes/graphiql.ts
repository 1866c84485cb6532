// HTTP layer: GraphiQL at `/.graphiql`, as Magnolia serves it beside `/.graphql`: React and GraphiQL
// from Petal's own dependencies (its `cdn/enabled: false`), nothing from a CDN, a strict CSP.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isPreviewRequest } from '../content-state.js';
import { registerAllowListedFiles, type AllowListedFile } from '../allow-listed-files.js';
import { etagOf, ifNoneMatchHits } from '../etag.js';
import { GRAPHIQL_CSP, GRAPHIQL_INIT, GRAPHIQL_PAGE_CSS, graphiqlPage } from './graphiql-page.js';

export { GRAPHIQL_CSP } from './graphiql-page.js';

export const GRAPHIQL_PATH = '/.graphiql';
/** Where the GraphQL API answers, below the context path. */
const GRAPHQL_PATH = '/.graphql';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** A package's folder, found through its package.json (loading its index would run browser code in Node). */
function packageDir(name: string): string {
  return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

/**
 * The only files served below the page: a fixed allow-list, so no request names a path on disk. The
 * packages are found now (a missing one fails at start), their files read on first request.
 */
function assets(): ReadonlyMap<string, AllowListedFile> {
  const file = (pkg: string, path: string, type: string): [string, AllowListedFile] => {
    const at = join(packageDir(pkg), path);
    return [path.slice(path.lastIndexOf('/') + 1), { type, load: () => readFileSync(at) }];
  };
  const own = (name: string, type: string, text: string): [string, AllowListedFile] => [name, { type, load: () => Buffer.from(text) }];
  return new Map<string, AllowListedFile>([
    // GraphiQL's UMD bundle expects React 18 as the globals React and ReactDOM; it carries graphql itself.
    file('react', 'umd/react.production.min.js', JS),
    file('react-dom', 'umd/react-dom.production.min.js', JS),
    file('graphiql', 'graphiql.min.js', JS),
    file('graphiql', 'graphiql.min.css', CSS),
    own('graphiql-init.js', JS, GRAPHIQL_INIT),
    own('graphiql-page.css', CSS, GRAPHIQL_PAGE_CSS),
  ]);
}

export interface GraphiqlOptions {
  readonly contextPath: string;
  /** The URL path the page posts queries to; by default `${contextPath}/.graphql`. */
  readonly endpoint?: string;
  /**
   * Publishing on: the preview context path. The page opened under it posts to the preview's
   * `/.graphql` (the working content, for preview roles), and loads its files from there too.
   */
  readonly previewContextPath?: string;
}

/**
 * The endpoint must be a path on this origin: the page's CSP allows requests to it only, and its
 * cookies go only there. `//host` and `/\host` would name another host.
 */
function checkEndpoint(endpoint: string): string {
  if (!/^\/(?![/\\])[^\s\\]*$/.test(endpoint)) {
    throw new Error(`GraphiQL endpoint ${JSON.stringify(endpoint)}: expected a path on this server, such as /.graphql`);
  }
  return endpoint;
}

function secure(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', GRAPHIQL_CSP).header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
}

/**
 * Registers the page and its files. The page is small and names the context path: revalidated each
 * time. The files change only with the packages' versions: cached for a day, then revalidated.
 */
export function registerGraphiqlRoutes(app: FastifyInstance, o: GraphiqlOptions): void {
  const base = o.contextPath + GRAPHIQL_PATH;
  const page = graphiqlPage(base, checkEndpoint(o.endpoint ?? o.contextPath + GRAPHQL_PATH));
  const pageTag = etagOf(page);
  const preview = o.previewContextPath === undefined ? undefined
    : graphiqlPage(o.previewContextPath + GRAPHIQL_PATH, checkEndpoint(o.previewContextPath + GRAPHQL_PATH));
  const previewTag = preview === undefined ? undefined : etagOf(preview);
  const files = assets();

  app.get(base, async (request: FastifyRequest, reply: FastifyReply) => {
    const inPreview = preview !== undefined && isPreviewRequest(request.raw);
    const [body, tag] = inPreview ? [preview, previewTag!] : [page, pageTag];
    secure(reply).header('cache-control', 'no-cache').header('etag', tag);
    if (ifNoneMatchHits(request.headers['if-none-match'], tag)) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(body);
  });
  registerAllowListedFiles(app, { base, files, label: 'GraphiQL', secure });
}

/** petal.yaml's GraphiQL switch: as configured; when absent, on except in production. */
export function graphiqlEnabled(configured: boolean | undefined, nodeEnv: string | undefined): boolean {
  return configured ?? nodeEnv !== 'production';
}
