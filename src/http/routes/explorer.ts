// HTTP layer: the API explorer page at `/.petal/explorer`: Swagger UI from Petal's own dependency
// (swagger-ui-dist), nothing from a CDN, pointed at the caller's OpenAPI document.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerAllowListedFiles, type AllowListedFile } from '../allow-listed-files.js';
import { etagOf, ifNoneMatchHits } from '../etag.js';

export const EXPLORER_PATH = '/.petal/explorer';
/** The document the page loads (served by routes/openapi.ts). */
const OPENAPI_JSON = '/.rest/openapi.json';

/**
 * No inline script or style: everything comes from this origin. Swagger UI shows images of its CSS as
 * `data:` URLs; its requests (the document, "Try it out") go to this origin only.
 */
export const EXPLORER_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

/** swagger-ui-dist's folder, found without loading its index (which would run the browser bundle in Node). */
function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

// Reads `#swagger-ui`'s data-url: the page carries the URL so this file needs no templating.
const INITIALIZER = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    domNode: root,
    withCredentials: true,
    deepLinking: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

/** The only files served below the page: a fixed allow-list, so no request names a path on disk. */
function assets(): ReadonlyMap<string, AllowListedFile> {
  const dir = swaggerUiDir();
  const fromDist = (name: string, type: string): [string, AllowListedFile] => [name, { type, load: () => readFileSync(join(dir, name)) }];
  return new Map<string, AllowListedFile>([
    fromDist('swagger-ui.css', 'text/css; charset=utf-8'),
    fromDist('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
    // Named by the page, so the browser asks for no /favicon.ico (a 404 in its console).
    fromDist('favicon-32x32.png', 'image/png'),
    ['explorer-init.js', { type: 'text/javascript; charset=utf-8', load: () => Buffer.from(INITIALIZER) }],
  ]);
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function explorerPage(contextPath: string): string {
  const base = escapeHtml(contextPath + EXPLORER_PATH);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Petal API explorer</title>
<link rel="stylesheet" href="${base}/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui" data-url="${escapeHtml(contextPath + OPENAPI_JSON)}"></div>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="${base}/explorer-init.js"></script>
</body>
</html>
`;
}

function secure(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', EXPLORER_CSP).header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
}

/**
 * Registers the page and its files. The page is small and names the context path: revalidated each
 * time. The files change only with the swagger-ui-dist version: cached for a day, then revalidated.
 */
export function registerExplorerRoutes(app: FastifyInstance, o: { readonly contextPath: string }): void {
  const base = o.contextPath + EXPLORER_PATH;
  const page = explorerPage(o.contextPath);
  const pageTag = etagOf(page);
  const files = assets();

  app.get(base, async (request: FastifyRequest, reply: FastifyReply) => {
    secure(reply).header('cache-control', 'no-cache').header('etag', pageTag);
    if (ifNoneMatchHits(request.headers['if-none-match'], pageTag)) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(page);
  });
  registerAllowListedFiles(app, { base, files, label: 'explorer', secure });
}

/** petal.yaml `explorer`: as configured; when absent, on except in production. */
export function explorerEnabled(configured: boolean | undefined, nodeEnv: string | undefined): boolean {
  return configured ?? nodeEnv !== 'production';
}
