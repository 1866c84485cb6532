// PostgreSQL backend: the rows of one batch of new nodes (see batched-import-tx.ts), written with COPY.
//
// Where an import's time went (bench/generate.ts, 100k nodes): the server's upkeep of the props
// primary key (workspace, name, nid, pos) for 13 index rows per node, then the node and full-text
// rows; in the client, building the rows. So:
// - every row's text is built when its node is added, while the server writes the previous batch;
//   only the node id (drawn from the sequence when the batch is sent) is put in front of it then;
// - index rows are sent grouped by property, each group in node order, so that consecutive rows land
//   on the same pages of that primary key rather than on one page per property in turn;
// - nodes, index rows and full text go by COPY (copy-rows.ts), not by INSERTs of parallel arrays.
import type pg from 'pg';
import type { InsertNode } from '../import-tx.js';
import { fullTextOf, indexRows } from '../index-values.js';
import { ftsBody } from './full-text.js';
import { KIND_CODE } from './migrations.js';
import { SQL, exec, run } from './statements.js';
import { copyLine, copyRows } from './copy-rows.js';
import { storableText } from './nul-text.js';

const NODE_COLUMNS = ['nid', 'workspace', 'id', 'path', 'parent_path', 'name', 'depth', 'position', 'type', 'mixins', 'props'];
const PROP_COLUMNS = ['nid', 'ws', 'name', 'pos', 'kind', 's', 'f', 'n'];
const FTS_COLUMNS = ['nid', 'body'];

/** Rows waiting for their node ids: each row's text after the id, and the node (its index in the batch) it belongs to. */
interface Rows {
  readonly node: number[];
  readonly rest: string[];
}

const rows = (): Rows => ({ node: [], rest: [] });

export class BatchRows {
  #size = 0;
  readonly #nodes: string[] = [];
  /** Index rows by workspace and property name. */
  readonly #props = new Map<string, Rows>();
  readonly #fts = rows();
  readonly #kinds = new Map<string, [string, string, number]>();
  readonly #types = new Map<string, [string, string]>();

  get size(): number {
    return this.#size;
  }

  add(n: InsertNode): void {
    const i = this.#size++;
    this.#nodes.push(copyLine([n.workspace, n.id, n.path, n.parentPath, n.name, n.depth, n.position, n.type,
      JSON.stringify(n.mixins), JSON.stringify(n.properties)]));
    for (const x of indexRows(n.properties)) {
      const name = storableText(x.name);
      const kind = KIND_CODE[x.kind];
      const group = `${n.workspace}\u0000${name}`;
      let g = this.#props.get(group);
      if (!g) this.#props.set(group, (g = rows()));
      g.node.push(i);
      g.rest.push(copyLine([n.workspace, name, x.pos, kind, storableText(x.s), storableText(x.f), x.n]));
      this.#kinds.set(`${group}\u0000${kind}`, [n.workspace, name, kind]);
    }
    this.#types.set(`${n.workspace}\u0000${n.type}`, [n.workspace, n.type]);
    const body = ftsBody(fullTextOf(n.properties));
    if (body !== '') {
      this.#fts.node.push(i);
      this.#fts.rest.push(copyLine([body]));
    }
  }

  /** Writes the batch in the client's transaction: a handful of statements however many nodes it holds. */
  async write(client: pg.PoolClient): Promise<void> {
    if (this.#size === 0) return;
    // Node ids drawn ahead, so that index rows name their node without a round trip per node.
    const nids = (await run<{ nid: string }>(client, SQL.allocateNids, [this.#size])).map((r) => r.nid);
    const withIds = (r: Rows, out: string[]) => {
      for (let k = 0; k < r.rest.length; k++) out.push(`${nids[r.node[k]!]!}\t${r.rest[k]!}`);
    };
    const nodes = this.#nodes.map((rest, i) => `${nids[i]!}\t${rest}`);
    const props: string[] = [];
    for (const g of this.#props.values()) withIds(g, props);
    const fts: string[] = [];
    withIds(this.#fts, fts);
    // Queued together (the connection runs them in order); the first failure is the one reported.
    await Promise.all([
      copyRows(client, 'nodes', NODE_COLUMNS, nodes),
      props.length > 0 ? copyRows(client, 'props', PROP_COLUMNS, props) : 0,
      fts.length > 0 ? copyRows(client, 'fts', FTS_COLUMNS, fts) : 0,
      this.#kinds.size > 0 ? exec(client, SQL.insertKinds, columns([...this.#kinds.values()], 3)) : 0,
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
