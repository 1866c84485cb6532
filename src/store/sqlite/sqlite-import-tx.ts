// SQLite backend: the ImportTx of one import, over the writer connection's prepared statements; the
// caller holds the transaction (BEGIN IMMEDIATE … COMMIT) around writeImport.
import { descendantRange } from '../../repository/paths.js';
import type { ImportTx, InsertNode } from '../import-tx.js';
import { fullTextOf, indexRows } from '../index-values.js';
import type { BlobSpool } from '../rows.js';
import type { SqliteChanges } from './changes.js';
import { KIND_CODE } from './migrations.js';
import { insertBlobChunks, type Statements } from './statements.js';

export function sqliteImportTx(s: Statements, changes: SqliteChanges): ImportTx {
  return {
    pathOfId: async (ws, id) => (s.pathOfId.get(ws, id) as { path: string } | undefined)?.path,
    positionOf: async (ws, path) => (s.positionOf.get(ws, path) as { position: number } | undefined)?.position,
    maxChildPosition: async (ws, parent) => (s.maxChild.get(ws, parent) as { m: number | null }).m ?? -1,
    deleteSubtree: async (ws, path) => {
      const [lo, hi] = descendantRange(path);
      return s.deleteNode.run(ws, path).changes + s.deleteBelow.run(ws, lo, hi).changes;
    },
    insertNode: async (n: InsertNode) => {
      const nid = s.insert.run(n.workspace, n.id, n.path, n.parentPath, n.name, n.depth, n.position, n.type,
        JSON.stringify(n.mixins), JSON.stringify(n.properties)).lastInsertRowid;
      for (const x of indexRows(n.properties)) {
        const kind = KIND_CODE[x.kind];
        s.insertProp.run(nid, n.workspace, x.name, x.pos, kind, x.s, x.f, x.n);
        s.insertKind.run(n.workspace, x.name, kind);
      }
      s.insertType.run(n.workspace, n.type);
      const text = fullTextOf(n.properties);
      if (text !== '') s.insertFts.run(nid, text);
    },
    subtreeNodes: async (ws, path, limit) => changes.subtreeNodes(ws, path, limit),
    recordChange: async (change) => changes.record(change),
    hasBlob: async (hash) => s.hasBlob.get(hash) !== undefined,
    insertBlob: async (spool: BlobSpool) => insertBlobChunks(s, spool),
    bumpGeneration: async () => { s.bump.run(); },
  };
}
