// Security layer: a state-changing request authenticated by a cookie must come from the server's own
// origin or an allowed one (browsers send Origin on such requests, and Sec-Fetch-Site since 2020).

export function isSameOrAllowedOrigin(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  allowedOrigins: readonly string[],
): boolean {
  const site = headers['sec-fetch-site'];
  if (site === 'same-origin' || site === 'none') return true;
  const origin = typeof headers.origin === 'string' ? headers.origin : undefined;
  if (origin === undefined) {
    // No Origin and no Sec-Fetch-Site: not a browser (curl, a server): cookies are not ambient there.
    return site === undefined;
  }
  if (allowedOrigins.includes(origin)) return true;
  const host = typeof headers.host === 'string' ? headers.host : undefined;
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}
