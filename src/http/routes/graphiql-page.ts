// HTTP layer: what the browser gets at `/.graphiql`: the page, the script that starts GraphiQL and the
// page's own stylesheet. Data reach the script through data- attributes, so no script is templated.

/**
 * The one inline stylesheet GraphiQL adds: while a dialog (settings, short keys) is open, Radix's
 * react-remove-scroll-bar puts a `<style>` in the head that locks the page's scroll. Its text depends
 * only on the body's margins and the scrollbar's width, both 0 on this page (GRAPHIQL_PAGE_CSS), so it is
 * always the same text and allowed by its hash, not by 'unsafe-inline'. Another GraphiQL version may
 * change the text: the browser test opens a dialog, and Chromium's report names the new hash.
 */
export const SCROLL_LOCK_STYLE_HASH = "'sha256-Y/huXlwoYkVyQlxwSVcCi1RCDGDCSVBzDt0hYP9qlTc='";

/**
 * No inline script, no inline style but the scroll lock above. GraphiQL's stylesheet embeds its fonts
 * and a few images as `data:` URLs; its requests (introspection, queries) go to the endpoint, a path on
 * this origin. React and CodeMirror set styles through the CSSOM (`element.style`), which style-src
 * does not govern.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'", "script-src 'self'", `style-src 'self' ${SCROLL_LOCK_STYLE_HASH}`, "img-src 'self' data:",
  "font-src 'self' data:", "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

/**
 * Starts GraphiQL in `#graphiql`, posting to its data-endpoint. Cookies go with each request: the
 * browser's fetch sends them to its own origin by default (credentials "same-origin"), so a signed-in
 * editor sees what they may read; incremental delivery is off because the endpoint answers plain JSON
 * (the multipart fetcher would only add an Accept header it ignores).
 */
export const GRAPHIQL_INIT = `(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var fetcher = GraphiQL.createFetcher({
    url: root.getAttribute('data-endpoint'),
    enableIncrementalDelivery: false
  });
  ReactDOM.createRoot(root).render(React.createElement(GraphiQL, { fetcher: fetcher }));
})();
`;

/**
 * GraphiQL fills its container, which needs a height (the CDN example sets it inline). The page never
 * scrolls: hidden overflow on html, not body (on body GraphiQL's dialogs log an error, unable to measure
 * the scrollbar), and no margin, which keeps the scroll lock's text constant (SCROLL_LOCK_STYLE_HASH).
 */
export const GRAPHIQL_PAGE_CSS = `html { height: 100%; overflow: hidden; }
body { height: 100%; margin: 0; }
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
