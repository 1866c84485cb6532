// PostgreSQL backend: the rows of one batch of new nodes (see batched-import-tx.ts), written with COPY.
//
// Where an import's time went (bench/generate.ts, 100k nodes): the server's upkeep of the props
// table's primary key for 13 index rows per node, then the node and full-text rows; in the client,
// building the rows. So:
// - there are no index rows any more (migration 7): the query index reads values from nodes.props;
// - every row is encoded when its node is added, while the server writes the previous batch; only
//   the node id (drawn ahead: see batched-import-tx.ts) is filled in when the batch is sent (copy-rows.ts);
// - nodes and full text go by COPY (copy-rows.ts), not by INSERTs of parallel arrays, and the whole
//   batch as one exchange with the server (batch-statement.ts).
import type pg from 'pg';
import type { InsertNode } from '../import-tx.js';
import { fullTextOf } from '../index-values.js';
import type { ListedKinds } from '../listed-kinds.js';
import { ftsBody } from './full-text.js';
import { CopyRows } from './copy-rows.js';
import { storableText } from './nul-text.js';
import { BatchStatement } from './batch-statement.js';

const COPY_NODES = 'COPY nodes (nid, workspace, id, path, parent_path, name, depth, position, type, mixins, props) FROM STDIN';
const COPY_FTS = 'COPY fts (nid, body) FROM STDIN';

/** The catalogues an import fills as it goes: kinds and types written once per transaction, not per batch. */
export interface Listed {
  readonly kinds: ListedKinds;
  readonly types: Set<string>;
}

export class BatchRows {
  #size = 0;
  readonly #nodes = new CopyRows();
  readonly #fts = new CopyRows();
  #kinds: [string, string, number][] = [];
  #types: [string, string][] = [];
  readonly #listed: Listed;

  constructor(listed: Listed) {
    this.#listed = listed;
  }

  get size(): number {
    return this.#size;
  }

  /** Empties it for another batch once this one is written (its buffers are the socket's until then). */
  clear(): void {
    this.#size = 0;
    this.#nodes.clear();
    this.#fts.clear();
    this.#kinds = [];
    this.#types = [];
  }

  add(n: InsertNode): void {
    const i = this.#size++;
    this.#nodes.add(i, [n.workspace, n.id, n.path, n.parentPath, n.name, n.depth, n.position, n.type,
      n.mixins.length === 0 ? '[]' : JSON.stringify(n.mixins), JSON.stringify(n.properties)]);
    this.#listed.kinds.add(n.workspace, n.properties, (name, kind) => this.#kinds.push([n.workspace, name, kind]));
    const typeKey = `${n.workspace}\u0000${n.type}`;
    if (!this.#listed.types.has(typeKey)) {
      this.#listed.types.add(typeKey);
      this.#types.push([n.workspace, n.type]);
    }
    const body = ftsBody(fullTextOf(n.properties));
    if (body !== '') this.#fts.add(i, [body]);
  }

  /**
   * Writes the batch in the client's transaction, as one exchange (batch-statement.ts), with the node
   * ids `nids` (one per node, in order, as pg returns int8: decimal text). `drawNext` more ids are
   * drawn in the same exchange, for the next batch: resolves with them.
   */
  async write(client: pg.ClientBase, nids: readonly string[], drawNext: number): Promise<string[]> {
    for (const rows of [this.#nodes, this.#fts]) rows.setNids(nids);
    const statements = [COPY_NODES];
    const copies = [this.#nodes.bytes];
    if (this.#fts.rows > 0) {
      statements.push(COPY_FTS);
      copies.push(this.#fts.bytes);
    }
    // Values inlined as literals: a simple query takes no parameters. Index text cannot hold U+0000
    // (nor can the query's text: it would end there).
    const lit = (v: string) => client.escapeLiteral(storableText(v));
    if (this.#kinds.length > 0) {
      statements.push(`INSERT INTO prop_kinds (ws, name, kind) VALUES ${
        this.#kinds.map(([ws, name, kind]) => `(${lit(ws)}, ${lit(name)}, ${kind})`).join(', ')} ON CONFLICT DO NOTHING`);
    }
    if (this.#types.length > 0) {
      statements.push(`INSERT INTO node_types (ws, type) VALUES ${
        this.#types.map(([ws, type]) => `(${lit(ws)}, ${lit(type)})`).join(', ')} ON CONFLICT DO NOTHING`);
    }
    if (drawNext > 0) statements.push(`SELECT nextval('nodes_nid_seq')::int8 FROM generate_series(1, ${drawNext | 0})`);
    const drawn = await BatchStatement.run(client, statements.join(';\n'), copies);
    return drawn.filter((v): v is string => v !== null);
  }
}
