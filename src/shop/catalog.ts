// Shop layer: reads catalogs through the caller's repository Session (so workspace ACLs apply) and
// keeps each catalog, fully parsed and indexed, in memory per role set until the content or the
// security configuration changes (a role set's key stays the same when its permissions change).
import type { Session } from '../repository/session.js';
import type { ContentStore } from '../store/content-store.js';
import {
  toCatalogHead, toCategoryTree, toCurrency, toProducts, toShippingMethods, TYPES, WS,
  type Catalog, type CatalogSnapshot, type Category, type Currency, type Product, type ShippingMethod,
} from './catalog-model.js';

/** Who reads: the session applies the ACLs; `roleKey` names the role set whose view is cached. */
export interface CatalogReader {
  readonly session: Session;
  readonly roleKey: string;
  /** The security configuration the session's access was compiled from (compared by identity). */
  readonly security: unknown;
}

const MAX_CATEGORY_DEPTH = 32;
/** Cached catalogs (role sets × catalogs); the oldest goes first beyond this. */
const MAX_ENTRIES = 256;

export class CatalogService {
  readonly #store: ContentStore;
  readonly #currentSecurity: () => unknown;
  #generation = -1;
  #security: unknown;
  /** `${roleKey}\0${kind}\0${key}` → snapshot or id → catalog name; all dropped when content or security changes. */
  readonly #snapshots = new Map<string, Promise<CatalogSnapshot | undefined>>();
  readonly #owners = new Map<string, Promise<string | undefined>>();

  /** `currentSecurity`: the security configuration in force (a reload replaces the object). */
  constructor(store: ContentStore, currentSecurity: () => unknown) {
    this.#store = store;
    this.#currentSecurity = currentSecurity;
  }

  /**
   * Drops everything cached under another content generation or security configuration. False when
   * the reader's access predates the configuration in force: what it reads must not be cached.
   */
  async #fresh(r: CatalogReader): Promise<boolean> {
    const g = this.#store.generationHint?.() ?? await this.#store.generation();
    const security = this.#currentSecurity();
    if (g !== this.#generation || security !== this.#security) {
      this.#generation = g;
      this.#security = security;
      this.#snapshots.clear();
      this.#owners.clear();
    }
    return r.security === security;
  }

  #remember<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let hit = map.get(key);
    if (hit === undefined) {
      if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
      hit = load();
      map.set(key, hit);
      hit.catch(() => map.delete(key)); // a failed load is not cached
    }
    return hit;
  }

  /** The catalog named `name` (its node name in shopCatalogs) as the reader may see it. */
  async snapshotByName(r: CatalogReader, name: string): Promise<CatalogSnapshot | undefined> {
    const cacheable = await this.#fresh(r);
    const generation = this.#generation;
    const load = () => loadSnapshot(r.session, name, generation);
    return cacheable ? this.#remember(this.#snapshots, `${r.roleKey}\0${name}`, load) : load();
  }

  /** The catalog that holds the node `id` of `workspace` (a catalog, category or product). */
  async #ownerSnapshot(r: CatalogReader, workspace: string, id: string, type: string): Promise<CatalogSnapshot | undefined> {
    const cacheable = await this.#fresh(r);
    const load = async () => {
      const [node] = await r.session.getNodesByIds(workspace, [id]);
      if (node === undefined || node.type !== type) return undefined;
      return node.path.split('/')[1];
    };
    const name = await (cacheable ? this.#remember(this.#owners, `${r.roleKey}\0${workspace}\0${id}`, load) : load());
    return name === undefined ? undefined : this.snapshotByName(r, name);
  }

  async catalog(r: CatalogReader, id: string): Promise<CatalogSnapshot | undefined> {
    const s = await this.#ownerSnapshot(r, WS.catalogs, id, TYPES.catalog);
    return s?.catalog.id === id ? s : undefined;
  }

  async category(r: CatalogReader, id: string): Promise<{ snapshot: CatalogSnapshot; category: Category } | undefined> {
    const s = await this.#ownerSnapshot(r, WS.categories, id, TYPES.category);
    const category = s?.categoryById.get(id);
    return s && category ? { snapshot: s, category } : undefined;
  }

  async product(r: CatalogReader, id: string): Promise<{ snapshot: CatalogSnapshot; product: Product } | undefined> {
    const s = await this.#ownerSnapshot(r, WS.products, id, TYPES.product);
    const product = s?.productById.get(id);
    return s && product ? { snapshot: s, product } : undefined;
  }

  /** A shipping method by id, whichever catalogs list it. */
  async shippingMethod(r: CatalogReader, id: string): Promise<ShippingMethod | undefined> {
    const [node] = await r.session.getNodesByIds(WS.shippingMethods, [id]);
    if (node === undefined || node.type !== TYPES.shippingMethod) return undefined;
    const rows = await r.session.getSubtree(WS.shippingMethods, node.path, 1);
    return toShippingMethods(rows).find((m) => m.id === id); // methods live at /<method>
  }
}

async function loadSnapshot(session: Session, name: string, generation: number): Promise<CatalogSnapshot | undefined> {
  const path = `/${name}`;
  const node = await session.getNode(WS.catalogs, path);
  if (node === undefined || node.type !== TYPES.catalog) return undefined;
  const head = toCatalogHead(node);
  const [categoryRows, productRows, currencyRows, methodRows] = await Promise.all([
    session.getSubtree(WS.categories, path, MAX_CATEGORY_DEPTH),
    session.getSubtree(WS.products, path, 2),
    session.getSubtree(WS.currencies, '/', 1),
    head.shippingMethodIds.length > 0 ? session.getSubtree(WS.shippingMethods, '/', 2) : Promise.resolve([]),
  ]);
  const currencyByCode = new Map<string, Currency>();
  for (const row of currencyRows) {
    if (row.type !== TYPES.currency) continue;
    const c = toCurrency(row);
    if (c) currencyByCode.set(c.code, c);
  }
  // A code without a currency node still works, with two fraction digits.
  const currencies = head.currencyCodes.map((code) => currencyByCode.get(code) ?? { code, title: null, symbol: null, fractionDigits: 2 });
  const categoryById = new Map<string, Category>();
  const categories = toCategoryTree(categoryRows, path, categoryById);
  const allMethods = new Map(toShippingMethods(methodRows).map((m) => [m.id, m]));
  const shippingMethods = head.shippingMethodIds.map((id) => allMethods.get(id)).filter((m): m is ShippingMethod => m !== undefined);
  const products = toProducts(node.id, productRows, path);
  const catalog: Catalog = {
    id: node.id, name: node.name, title: head.title, description: head.description,
    defaultCurrency: head.defaultCurrency ?? currencies[0]?.code ?? 'EUR',
    pricesIncludeTax: head.pricesIncludeTax, currencies, categories, shippingMethods,
  };
  return {
    generation, catalog, products,
    productById: new Map(products.map((p) => [p.id, p])),
    categoryById,
    shippingMethodById: new Map(shippingMethods.map((m) => [m.id, m])),
  };
}
