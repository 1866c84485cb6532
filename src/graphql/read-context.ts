// GraphQL layer: what the resolvers of one request read through. Every read goes through the caller's
// Session (repository/session.ts), so a node the caller may not read is, to GraphQL too, a node that
// does not exist: a reference to it is null, a list leaves it out, a filter never matches it.
// Look-ups by id are batched per workspace within a tick (DataLoader), so a list of 100 items with a
// reference each costs one read of the targets, not 100.
import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import type { SiteConfig } from '../config/load-config.js';
import type { LinkConfig } from '../config/link-config.js';
import type { Session } from '../repository/session.js';
import type { NodeRecord } from '../store/rows.js';
import { resolveLocale, type LocaleChoice } from '../delivery/resolve-locale.js';

/** The site's theme as far as rendition links need it. */
export interface GraphqlTheme {
  readonly name: string;
  readonly variations: readonly string[];
  hasVariation(name: string): boolean;
}

export interface ReadContextOptions {
  readonly session: Session;
  readonly site: SiteConfig;
  readonly acceptLanguage: string | undefined;
  readonly links: LinkConfig;
  readonly theme?: GraphqlTheme;
  /** Output name of a system name (`cms:page` → `mgnl:page` under `namespace: mgnl`). */
  readonly outName: (name: string) => string;
  /** Largest `limit` of a list field (and its default when absent). */
  readonly maxLimit: number;
  readonly defaultLimit: number;
  /** Most items (content items and assets) one answer may hold, references of references included. */
  readonly maxItems: number;
}

const DAM = 'dam';
const RESOURCE = 'jcr:content';

export class ReadContext {
  readonly session: Session;
  readonly site: SiteConfig;
  readonly links: LinkConfig;
  readonly theme: GraphqlTheme | undefined;
  readonly outName: (name: string) => string;
  readonly maxLimit: number;
  readonly defaultLimit: number;
  readonly maxItems: number;
  #items = 0;
  readonly #acceptLanguage: string | undefined;
  readonly #byId = new Map<string, DataLoader<string, NodeRecord | undefined>>();
  readonly #resources: DataLoader<string, NodeRecord | undefined>;
  readonly #locales = new Map<string, LocaleChoice>();

  constructor(o: ReadContextOptions) {
    this.session = o.session;
    this.site = o.site;
    this.links = o.links;
    this.theme = o.theme;
    this.outName = o.outName;
    this.maxLimit = o.maxLimit;
    this.defaultLimit = o.defaultLimit;
    this.maxItems = o.maxItems;
    this.#acceptLanguage = o.acceptLanguage;
    // An asset's file name and type sit on its resource child, read for all assets of a tick at once.
    this.#resources = new DataLoader(async (paths) => {
      const nodes = await this.session.getSubtrees(DAM, paths, 1);
      const byParent = new Map<string, NodeRecord>();
      for (const n of nodes) if (n.name === RESOURCE) byParent.set(n.parentPath, n);
      return paths.map((p) => byParent.get(p));
    }, { maxBatchSize: 500 });
  }

  /** The node of this id in the workspace, if the caller may read it. */
  node(workspace: string, id: string): Promise<NodeRecord | undefined> {
    let loader = this.#byId.get(workspace);
    if (loader === undefined) {
      loader = new DataLoader(async (ids) => {
        const found = await this.session.getNodesByIds(workspace, ids);
        const byId = new Map(found.map((n) => [n.id, n]));
        return ids.map((i) => byId.get(i));
      }, { maxBatchSize: 500 });
      this.#byId.set(workspace, loader);
    }
    return loader.load(id);
  }

  nodeAt(workspace: string, path: string): Promise<NodeRecord | undefined> {
    return this.session.getNode(workspace, path);
  }

  /** The `jcr:content` child of an asset (file name, extension, MIME type). */
  resourceOf(asset: NodeRecord): Promise<NodeRecord | undefined> {
    return this.#resources.load(asset.path);
  }

  /**
   * Counts `n` more items into the answer. Depth and cost are checked before execution, but lists of
   * references multiply (100 books × their authors × ...): this bounds what one answer reads and holds.
   */
  charge(n: number): void {
    this.#items += n;
    if (this.#items > this.maxItems) {
      throw new GraphQLError(`The answer would hold more than ${this.maxItems} items: ask for fewer (smaller limits, fewer nested references)`,
        { extensions: { code: 'ANSWER_TOO_LARGE' } });
    }
  }

  /** The language of a field: its `locale` argument, else `Accept-Language`, else the site's default. */
  locale(argument: string | undefined): LocaleChoice {
    const key = argument ?? '';
    let choice = this.#locales.get(key);
    if (choice === undefined) {
      choice = resolveLocale(argument, this.#acceptLanguage, this.site);
      this.#locales.set(key, choice);
    }
    return choice;
  }
}
