// Test fixture (query index deltas): a seeded workspace of sections and pages with properties of every
// kind, small imports that create, change, remove and move nodes (keeping a model of the tree so each
// import is valid), and random queries of every filter, scope and order kind.
import type { Condition, StoreOrder, StoreQuery, TypedRange } from '../../../src/query/ast.js';
import type { StoredProperty } from '../../../src/model/property-type.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import type { ImportDocument, NodeDraft } from '../../../src/repository/import-document.js';
import { importDocuments } from '../../../src/repository/writes.js';

export const WS = 'dw';
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'Zeta', 'éclair'];
const TYPES = ['cms:page', 'cms:content', 'cms:component'];

export function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 0x100000000;
  };
}

interface Page { name: string; id: string; type: string; properties: StoredProperty[] }
interface Section { name: string; id: string; pages: Page[] }

/** The content as imported, so that every change is a valid import. */
export class Model {
  readonly sections: Section[] = [];
  #ids = 0;
  constructor(readonly r: () => number, readonly tag: number) {}

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.r() * list.length)]!;
  }

  id(): string {
    return `0000${this.tag.toString(16).padStart(4, '0')}-0000-4000-8000-${(++this.#ids).toString(16).padStart(12, '0')}`;
  }

  properties(): StoredProperty[] {
    const r = this.r;
    const props: StoredProperty[] = [['title', 'String', `${this.pick(WORDS)} ${this.pick(WORDS)} ${Math.floor(r() * 50)}`]];
    if (r() < 0.8) props.push(['price', r() < 0.5 ? 'Long' : 'Double', r() < 0.5 ? Math.floor(r() * 20) : Math.round(r() * 2000) / 100]);
    if (r() < 0.6) props.push(['date', 'Date', new Date(Date.UTC(2024, Math.floor(r() * 12), 1 + Math.floor(r() * 28))).toISOString()]);
    if (r() < 0.5) props.push(['flag', 'Boolean', r() < 0.5]);
    if (r() < 0.5) props.push(['tags', 'String', [this.pick(WORDS), this.pick(WORDS)]]);
    // Mixed kinds in one property: numbers and text order and filter by kind.
    if (r() < 0.5) props.push(['mix', r() < 0.5 ? 'Long' : 'String', r() < 0.5 ? Math.floor(r() * 5) : this.pick(WORDS)]);
    return props;
  }

  page(name?: string): Page {
    return { name: name ?? `p${Math.floor(this.r() * 1e6)}`, id: this.id(), type: this.pick(TYPES), properties: this.properties() };
  }

  static draft(p: Page): NodeDraft {
    return { name: p.name, id: p.id, type: p.type, mixins: [], properties: p.properties, children: [] };
  }

  sectionDraft(s: Section): NodeDraft {
    return { name: s.name, id: s.id, type: 'cms:folder', mixins: [], properties: [['title', 'String', s.name]], children: s.pages.map(Model.draft) };
  }

  /** The initial workspace: `sections` sections of `pages` pages. */
  initial(sections: number, pages: number): ImportDocument {
    for (let i = 0; i < sections; i++) {
      const s: Section = { name: `s${i}`, id: this.id(), pages: [] };
      for (let j = 0; j < pages; j++) s.pages.push(this.page(`p${j}`));
      this.sections.push(s);
    }
    return { source: 'initial', workspace: WS, parentPath: '/', roots: this.sections.map((s) => this.sectionDraft(s)), blobs: [] };
  }

  /** One random small change, applied to the store by import (created, changed, removed or moved nodes). */
  async change(store: ContentStore): Promise<string> {
    const kind = this.pick(['create', 'change', 'remove', 'move'] as const);
    const s = this.pick(this.sections);
    const doc = (parentPath: string, roots: NodeDraft[]): ImportDocument => ({ source: kind, workspace: WS, parentPath, roots, blobs: [] });
    if (kind === 'create' || s.pages.length === 0) {
      const p = this.page();
      if (s.pages.some((x) => x.name === p.name)) return 'none';
      s.pages.push(p);
      await importDocuments(store, [doc(`/${s.name}`, [Model.draft(p)])], { onUuidCollision: 'new' });
      return 'create';
    }
    const p = this.pick(s.pages);
    if (kind === 'change') {
      p.properties = this.properties();
      p.type = this.pick(TYPES);
      await importDocuments(store, [doc(`/${s.name}`, [Model.draft(p)])], { onUuidCollision: 'new' });
    } else if (kind === 'remove') {
      s.pages.splice(s.pages.indexOf(p), 1);
      await importDocuments(store, [doc('/', [this.sectionDraft(s)])], { onUuidCollision: 'new' });
    } else {
      const to = this.pick(this.sections);
      const name = `m${Math.floor(this.r() * 1e6)}`;
      if (to.pages.some((x) => x.name === name)) return 'none';
      s.pages.splice(s.pages.indexOf(p), 1);
      const moved = { ...p, name };
      to.pages.push(moved);
      // The UUID collision policy `replace` moves the node holding the id (a `moved` event).
      await importDocuments(store, [doc(`/${to.name}`, [Model.draft(moved)])], { onUuidCollision: 'replace' });
    }
    return kind;
  }

  #range(): TypedRange {
    const r = this.r;
    switch (this.pick(['number', 'string', 'date', 'boolean', 'eq'] as const)) {
      case 'number': return { kind: 'number', lo: { value: Math.floor(r() * 10), inclusive: r() < 0.5 }, ...(r() < 0.5 ? { hi: { value: 10 + Math.floor(r() * 10), inclusive: true } } : {}) };
      case 'string': return { kind: 'string', lo: { value: this.pick(WORDS), inclusive: true } };
      case 'date': return { kind: 'date', hi: { value: Date.UTC(2024, Math.floor(r() * 12), 1), inclusive: false } };
      case 'boolean': return { kind: 'boolean', lo: { value: 'true', inclusive: true }, hi: { value: 'true', inclusive: true } };
      case 'eq': { const w = this.pick(WORDS); return { kind: 'string', lo: { value: w, inclusive: true }, hi: { value: w, inclusive: true } }; }
    }
  }

  #condition(): Condition {
    const r = this.r;
    const prop = this.pick(['price', 'title', 'date', 'flag', 'tags', 'mix', 'absent']);
    switch (this.pick(['ranges', 'like', 'exists', 'name', 'type', 'descendantOf', 'childOf', 'readable', 'path'] as const)) {
      case 'ranges': return { kind: 'ranges', target: { kind: 'property', name: prop }, negate: r() < 0.3, ranges: [this.#range(), ...(r() < 0.3 ? [this.#range()] : [])] };
      case 'like': return { kind: 'like', target: { kind: 'property', name: this.pick(['title', 'tags', 'mix']) }, caseInsensitive: r() < 0.5, patterns: [`%${this.pick(WORDS).slice(0, 2)}%`], negate: r() < 0.2 };
      case 'exists': return { kind: 'exists', name: prop, exists: r() < 0.7 };
      case 'name': return { kind: 'like', target: { kind: 'name' }, caseInsensitive: false, patterns: [`${this.pick(['p', 'm', 's'])}%`], negate: r() < 0.3 };
      case 'type': return { kind: 'ranges', target: { kind: 'type' }, negate: r() < 0.3, ranges: [{ kind: 'string', lo: { value: this.pick(TYPES), inclusive: true }, hi: { value: this.pick(TYPES), inclusive: true } }] };
      case 'descendantOf': return { kind: 'descendantOf', paths: [`/${this.pick(this.sections).name}`, `/${this.pick(this.sections).name}`], negate: r() < 0.3 };
      case 'childOf': return { kind: 'childOf', path: this.r() < 0.2 ? '/' : `/${this.pick(this.sections).name}` };
      case 'readable': return { kind: 'readable', rules: [{ pattern: `/${this.pick(this.sections).name}*`, read: false }, { pattern: '/*', read: true }] };
      case 'path': return { kind: 'ranges', target: { kind: 'path' }, negate: false, ranges: [{ kind: 'string', lo: { value: `/${this.pick(this.sections).name}/p`, inclusive: true } }] };
    }
  }

  #order(): StoreOrder {
    const target = this.pick([
      { kind: 'property', name: 'price' }, { kind: 'property', name: 'title' }, { kind: 'property', name: 'mix' },
      { kind: 'property', name: 'date' }, { kind: 'property', name: 'tags' }, { kind: 'property', name: 'absent' },
      { kind: 'name' }, { kind: 'path' }, { kind: 'type' },
    ] as const);
    return { target, descending: this.r() < 0.5 };
  }

  query(): StoreQuery {
    const r = this.r;
    const conditions: Condition[] = [];
    const n = Math.floor(r() * 3);
    for (let i = 0; i < n; i++) conditions.push(this.#condition());
    const orderBy: StoreOrder[] = [];
    const o = Math.floor(r() * 3);
    for (let i = 0; i < o; i++) orderBy.push(this.#order());
    return {
      workspace: WS,
      rootPath: r() < 0.7 ? '/' : `/${this.pick(this.sections).name}`,
      types: r() < 0.7 ? null : [this.pick(TYPES), this.pick(TYPES)],
      conditions,
      fullText: r() < 0.2 ? [{ word: this.pick(WORDS).toLowerCase().slice(0, 3), prefix: true }] : [],
      orderBy,
      offset: r() < 0.5 ? 0 : Math.floor(r() * 30),
      limit: 1 + Math.floor(r() * 25),
    };
  }
}

/** What a query answers, for comparison: the total and the page's paths and ids. */
export async function answer(store: ContentStore, q: StoreQuery): Promise<{ total: number; nodes: string[] }> {
  const r = await store.reads.query(q);
  return { total: r.total, nodes: r.nodes.map((n) => `${n.path} ${n.id}`) };
}
