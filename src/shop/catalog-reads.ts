// Shop layer: the read operations of the shop (catalog, category, products, shipping method). These
// are SPEC.md's templating functions; the HTTP routes and the in-process ShopApi both call them.
import { PetalError } from '../errors.js';
import type { CatalogSnapshot, Category, Product } from './catalog-model.js';
import type { CatalogReader, CatalogService } from './catalog.js';
import { pageOf, parsePage, type RawPageParams } from './product-list.js';
import type { ShopStore } from './shop-store.js';
import {
  catalogView, categoryView, productView, shippingMethodView,
  type CatalogView, type CategoryView, type Page, type ProductView, type ShippingMethodView,
} from './views.js';

const categoryProducts = new WeakMap<Category, readonly Product[]>();

export class CatalogReads {
  constructor(readonly catalogs: CatalogService, readonly store: ShopStore) {}

  async catalog(r: CatalogReader, id: string): Promise<CatalogView> {
    const s = await this.catalogs.catalog(r, id);
    if (!s) throw new PetalError('catalogNotFound', `No catalog with id ${JSON.stringify(id)}`);
    return catalogView(s.catalog);
  }

  async category(r: CatalogReader, id: string): Promise<CategoryView & { catalogId: string }> {
    const hit = await this.catalogs.category(r, id);
    if (!hit) throw new PetalError('categoryNotFound', `No category with id ${JSON.stringify(id)}`);
    return { ...categoryView(hit.category), catalogId: hit.snapshot.catalog.id };
  }

  async shippingMethod(r: CatalogReader, id: string): Promise<ShippingMethodView> {
    const m = await this.catalogs.shippingMethod(r, id);
    if (!m) throw new PetalError('shippingMethodNotFound', `No shipping method with id ${JSON.stringify(id)}`);
    return shippingMethodView(m);
  }

  /** All products of the catalog, one page. Parameters are checked before the catalog is looked up. */
  async catalogProducts(r: CatalogReader, id: string, raw: RawPageParams = {}): Promise<Page<ProductView>> {
    const page = parsePage(raw);
    const s = await this.catalogs.catalog(r, id);
    if (!s) throw new PetalError('catalogNotFound', `No catalog with id ${JSON.stringify(id)}`);
    return this.#page(s.products, page, s);
  }

  /** Products of the category and of its sub-categories, in catalog order (or `sort`). */
  async categoryProducts(r: CatalogReader, id: string, raw: RawPageParams = {}): Promise<Page<ProductView>> {
    const page = parsePage(raw);
    const hit = await this.catalogs.category(r, id);
    if (!hit) throw new PetalError('categoryNotFound', `No category with id ${JSON.stringify(id)}`);
    let products = categoryProducts.get(hit.category);
    if (products === undefined) {
      const ids = new Set<string>();
      const walk = (c: Category): void => { ids.add(c.id); c.children.forEach(walk); };
      walk(hit.category);
      products = hit.snapshot.products.filter((p) => p.categoryIds.some((c) => ids.has(c)));
      categoryProducts.set(hit.category, products); // categories belong to one cached catalog: so does this list
    }
    return this.#page(products, page, hit.snapshot);
  }

  async #page(products: readonly Product[], page: ReturnType<typeof parsePage>, s: CatalogSnapshot): Promise<Page<ProductView>> {
    const items = pageOf(products, page, s.catalog.defaultCurrency, Date.now());
    const tracked = items.filter((p) => p.stock !== null).map((p) => ({ productId: p.id, onHand: p.stock!, generation: s.generation }));
    const left = tracked.length > 0 ? await this.store.available(tracked) : new Map<string, number>();
    return {
      items: items.map((p) => productView(p, p.stock === null ? null : left.get(p.id) ?? p.stock)),
      total: products.length, limit: page.limit, offset: page.offset,
    };
  }
}
