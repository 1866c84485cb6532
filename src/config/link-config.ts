// Config layer: how Petal writes links (petal.yaml `links:`), read by load-config.ts and applied by
// delivery/links.ts.

export interface LinkConfig {
  /** Prefix of every link (the context path, e.g. `/magnoliaPublic`). */
  readonly contextPath: string;
  /** Appended to page links (e.g. `.html`); none by default, as for SPA routes. */
  readonly extension: string;
  /** Path prefixes of sites mapped to URL prefixes (`/travel` → `/`), longest first. */
  readonly mappings: readonly { readonly from: string; readonly to: string }[];
  /** Base of complete URLs (`completeUrl` of rich text), e.g. `https://www.example.com`. */
  readonly baseUrl?: string;
}

export const DEFAULT_LINKS: LinkConfig = { contextPath: '', extension: '', mappings: [] };
