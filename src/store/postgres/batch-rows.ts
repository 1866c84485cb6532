// PostgreSQL backend: the rows of one batch of new nodes (see batched-import-tx.ts), written with COPY.
//
// Where an import's time went (bench/generate.ts, 100k nodes): the server's upkeep of the props
// table's primary key for 13 index rows per node, then the node and full-text rows; in the client,
// building the rows. So:
// - there are no index rows any more (migration 7): the query index reads values from nodes.props;
// - every row is encoded when its node is added, while the server writes the previous batch; only
//   the node id (drawn from the sequence when the batch is sent) is filled in then (copy-rows.ts);
// - nodes and full text go by COPY (copy-rows.ts), not by INSERTs of parallel arrays.
import type pg from 'pg';
import type { InsertNode } from '../import-tx.js';
import { fullTextOf } from '../index-values.js';
import { ListedKinds } from '../listed-kinds.js';
import { ftsBody } from './full-text.js';
import { SQL, exec, run } from './statements.js';
import { CopyRows, copyRows } from './copy-rows.js';
import { storableText } from './nul-text.js';

const NODE_COLUMNS = ['nid', 'workspace', 'id', 'path', 'parent_path', 'name', 'depth', 'position', 'type', 'mixins', 'props'];
const FTS_COLUMNS = ['nid', 'body'];

export class BatchRows {
  #size = 0;
  readonly #nodes = new CopyRows();
  readonly #fts = new CopyRows();
  readonly #kinds: [string, string, number][] = [];
  /** The kinds catalogue's pairs this batch lists already. */
  readonly #listed = new ListedKinds();
  readonly #types = new Map<string, [string, string]>();

  get size(): number {
    return this.#size;
  }

  add(n: InsertNode): void {
    const i = this.#size++;
    this.#nodes.add(i, [n.workspace, n.id, n.path, n.parentPath, n.name, n.depth, n.position, n.type,
      JSON.stringify(n.mixins), JSON.stringify(n.properties)]);
    this.#listed.add(n.workspace, n.properties, (name, kind) => this.#kinds.push([n.workspace, storableText(name), kind]));
    this.#types.set(`${n.workspace}\u0000${n.type}`, [n.workspace, n.type]);
    const body = ftsBody(fullTextOf(n.properties));
    if (body !== '') this.#fts.add(i, [body]);
  }

  /** Writes the batch in the client's transaction: a handful of statements however many nodes it holds. */
  async write(client: pg.PoolClient): Promise<void> {
    if (this.#size === 0) return;
    // Node ids drawn now, so that full-text rows name their node without a round trip per node.
    const nids = (await run<{ nid: string }>(client, SQL.allocateNids, [this.#size])).map((r) => r.nid);
    for (const rows of [this.#nodes, this.#fts]) rows.setNids(nids);
    // Queued together (the connection runs them in order); the first failure is the one reported.
    await Promise.all([
      copyRows(client, 'nodes', NODE_COLUMNS, this.#nodes.bytes),
      this.#fts.rows > 0 ? copyRows(client, 'fts', FTS_COLUMNS, this.#fts.bytes) : 0,
      this.#kinds.length > 0 ? exec(client, SQL.insertKinds, columns(this.#kinds, 3)) : 0,
      exec(client, SQL.insertTypes, columns([...this.#types.values()], 2)),
    ]);
  }
}

/** Rows as parallel column arrays (what `unnest` takes). */
function columns(list: readonly (readonly unknown[])[], width: number): unknown[][] {
  const out: unknown[][] = Array.from({ length: width }, () => []);
  for (const r of list) r.forEach((v, c) => out[c]!.push(v));
  return out;
}
