// Data and views of sqlite-bulk-import.test.ts and its crash child: folders of numbered items with
// string, number, date, boolean, multi-value and rich-text properties, and every row an import writes
// (nodes, index rows by path, kinds, types, words, the indexes themselves) read back by path, not nid.
import Database from '../../src/store/sqlite/driver.js';
import type { StoredProperty } from '../../src/model/property-type.js';
import type { ImportDocument, NodeDraft } from '../../src/repository/import-document.js';
import { document, draft, uuid } from '../conformance/drafts.js';

export const WS = 'tours';
/** Words every item has one of, for full-text checks. */
export const WORDS = ['river', 'temple', 'market', 'island', 'desert', 'forest', 'harbour'];

export function item(i: number): NodeDraft {
  const w = WORDS[i % WORDS.length]!;
  const properties: StoredProperty[] = [
    ['title', 'String', `The ${w} tour ${(i * 7919) % 10_007}`],
    ['description', 'String', `<p>Discover the <strong>${w}</strong> &amp; more, tour ${i}</p>`],
    ['price', 'Double', ((i * 37) % 1000) / 4],
    ['duration', 'Long', 1 + (i % 21)],
    ['activated', 'Date', `2024-0${1 + (i % 9)}-1${i % 10}T10:00:00.000+00:00`],
    ['featured', 'Boolean', i % 2 === 0],
    ['tags', 'String', [`t${i % 5}`, `u${i % 3}`]],
  ];
  return draft(`item-${i}`, { id: uuid(1_000_000 + i), type: 'cms:content', properties });
}

/** Folder `f` with `per` items; `twin`: its first item's name appears again at the end (the later one wins). */
export function folder(f: number, per: number, twin = false): ImportDocument {
  const children = Array.from({ length: per }, (_, k) => item(f * per + k));
  if (twin) children.push({ ...item(f * per), id: uuid(2_000_000 + f), properties: [['title', 'String', `twin of folder ${f}`]] });
  return document(WS, '/', [draft(`f${String(f).padStart(3, '0')}`, { id: uuid(3_000_000 + f), type: 'cms:folder' }, children)]);
}

/** Every row an import writes, by path (nid-independent), plus the schema's indexes and an integrity check. */
export function snapshot(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    // Per word: the paths whose text holds it, and how many fts rows match it (no orphan rows).
    const words = Object.fromEntries(WORDS.concat('twin', 'amp', 'more').map((w) => [w, {
      paths: (db.prepare('SELECT n.path FROM fts JOIN nodes n ON n.nid = fts.rowid WHERE fts MATCH ? ORDER BY n.path').all(w) as { path: string }[]).map((r) => r.path),
      rows: (db.prepare('SELECT count(*) AS n FROM fts WHERE fts MATCH ?').get(w) as { n: number }).n,
    }]));
    return {
      nodes: db.prepare('SELECT workspace, id, path, parent_path, name, depth, position, type, mixins, props FROM nodes ORDER BY workspace, path').all(),
      orphanText: (db.prepare('SELECT count(*) AS n FROM fts_docsize WHERE id NOT IN (SELECT nid FROM nodes)').get() as { n: number }).n,
      kinds: db.prepare('SELECT ws, name, kind FROM prop_kinds ORDER BY ws, name, kind').all(),
      types: db.prepare('SELECT ws, type FROM node_types ORDER BY ws, type').all(),
      words,
      indexes: db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all(),
      integrity: db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    db.close();
  }
}
