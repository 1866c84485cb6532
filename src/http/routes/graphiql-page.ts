// HTTP layer: what the browser gets at `/.graphiql`: the page, the script that starts GraphiQL and the
// page's own stylesheet. Data reach the script through data- attributes, so no script is templated.

/**
 * No inline script or style. GraphiQL's stylesheet embeds its fonts and a few images as `data:` URLs;
 * its requests (introspection, queries) go to the endpoint, a path on this origin. React and CodeMirror
 * set styles through the CSSOM (`element.style`), which style-src does not govern.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

/**
 * Starts GraphiQL in `#graphiql`, posting to its data-endpoint. Cookies go with each request
 * (same-origin), so a signed-in editor sees what they may read; incremental delivery is off because the
 * endpoint answers plain JSON (the multipart fetcher would only add an Accept header it ignores).
 */
export const GRAPHIQL_INIT = `(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var fetcher = GraphiQL.createFetcher({
    url: root.getAttribute('data-endpoint'),
    enableIncrementalDelivery: false,
    fetch: function (url, init) {
      return window.fetch(url, Object.assign({}, init, { credentials: 'same-origin' }));
    }
  });
  ReactDOM.createRoot(root).render(React.createElement(GraphiQL, { fetcher: fetcher }));
})();
`;

/** GraphiQL fills its container: the container must have a height (the CDN example does this inline). */
export const GRAPHIQL_PAGE_CSS = `html, body { height: 100%; margin: 0; overflow: hidden; }
#graphiql { height: 100vh; }
`;

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page below `base` (the context path and `/.graphiql`). The empty `data:` icon keeps the browser
 * from asking for /favicon.ico, a 404 in its console.
 */
export function graphiqlPage(base: string, endpoint: string): string {
  const b = escapeHtml(base);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Petal GraphiQL</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${b}/graphiql.min.css">
<link rel="stylesheet" href="${b}/graphiql-page.css">
</head>
<body>
<div id="graphiql" data-endpoint="${escapeHtml(endpoint)}">Loading GraphiQL…</div>
<script src="${b}/react.production.min.js"></script>
<script src="${b}/react-dom.production.min.js"></script>
<script src="${b}/graphiql.min.js"></script>
<script src="${b}/graphiql-init.js"></script>
</body>
</html>
`;
}
