// PostgreSQL backend: the store's reads (NodeReads), each on a replica recent enough or the primary
// (read-router.ts). Queries are answered by the in-memory query index over columns loaded from the
// property index; property kinds and node types are memoized while the change listener vouches for
// the generation. Text with U+0000 names nothing stored (nul-text.ts) and is never sent.
import type pg from 'pg';
import type { NodeReads, QueryResult, ReadableCondition } from '../content-store.js';
import type { StoreQuery, ValueKind } from '../../query/ast.js';
import type { NodeRecord } from '../rows.js';
import type { ChildPageRequest } from '../child-pages.js';
import { descendantRange } from '../../model/paths.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import type { QueryIndex } from '../query-index/query-index.js';
import { kindsFromRows } from '../query-index/column-source.js';
import type { GenerationMemo } from '../generation-memo.js';
import { childPageRows, subtreesRows } from './subtree-reads.js';
import { tsQueryText } from './full-text.js';
import { hasNul, withoutNul } from './nul-text.js';
import { SQL, run } from './statements.js';

/** What the reads use of the open store. */
export interface PostgresReadContext {
  readonly read: <T>(fn: (db: pg.Pool) => Promise<T>) => Promise<T>;
  /** On the primary (ping). */
  readonly primary: () => pg.Pool;
  readonly index: QueryIndex;
  readonly memo: GenerationMemo;
  readonly generationHint: () => number | undefined;
  /** Runs a read of the query index, dropping its columns when the database could not be reached. */
  readonly indexed: <T>(fn: () => Promise<T>) => Promise<T>;
}

export class PostgresReads implements NodeReads {
  constructor(private readonly c: PostgresReadContext) {}

  async ping(): Promise<boolean> {
    try {
      return (await run(this.c.primary(), SQL.ping)).length === 1;
    } catch {
      return false;
    }
  }

  async getNode(workspace: string, path: string): Promise<NodeRecord | undefined> {
    if (hasNul(path)) return undefined;
    const rows = await this.c.read((db) => run<NodeRow>(db, SQL.byPath, [workspace, path]));
    return rows[0] && toRecord(rows[0]);
  }

  async getNodeById(workspace: string, id: string): Promise<NodeRecord | undefined> {
    if (hasNul(id)) return undefined;
    const rows = await this.c.read((db) => run<NodeRow>(db, SQL.byId, [workspace, id]));
    return rows[0] && toRecord(rows[0]);
  }

  async getNodesByIds(workspace: string, ids: readonly string[]): Promise<NodeRecord[]> {
    const wanted = withoutNul(ids);
    if (wanted.length === 0) return [];
    return (await this.c.read((db) => run<NodeRow>(db, SQL.byIds, [workspace, wanted]))).map(toRecord);
  }

  async getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]> {
    if (hasNul(path)) return [];
    if (path === '/') {
      if (depth <= 0) return [];
      return (await this.c.read((db) => run<NodeRow>(db, SQL.rootSubtree, [workspace, depth]))).map(toRecord);
    }
    if (depth <= 0) {
      const node = await this.getNode(workspace, path);
      return node ? [node] : [];
    }
    const [lo, hi] = descendantRange(path);
    return (await this.c.read((db) => run<NodeRow>(db, SQL.subtree, [workspace, path, lo, hi, depth]))).map(toRecord);
  }

  async getChildrenPages(workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<NodeRecord[]> {
    return (await this.c.read((db) => childPageRows(db, workspace, parents, limit))).map(toRecord);
  }

  async getSubtrees(workspace: string, paths: readonly string[], depth: number): Promise<NodeRecord[]> {
    return (await this.c.read((db) => subtreesRows(db, workspace, paths, depth))).map(toRecord);
  }

  async query(q: StoreQuery): Promise<QueryResult> {
    // Always the query index (the delivery layer only builds queries it can run: eq / ne on @id).
    if (!this.c.index.canRun(q)) throw new Error('PostgresStore: this query (a uuid condition other than eq / ne) is not supported');
    return this.c.indexed(() => this.c.index.run(q, tsQueryText(q)));
  }

  async propertyKinds(workspace: string, names: readonly string[], readable?: ReadableCondition): Promise<Map<string, ValueKind[]>> {
    names = withoutNul(names);
    if (names.length === 0) return new Map();
    if (readable) return this.c.indexed(() => this.c.index.kinds(workspace, names, readable));
    const load = async () => kindsFromRows(await this.c.read((db) => run<{ name: string; kind: number }>(db, SQL.kinds, [workspace, names])));
    // Memoized only while the change listener vouches for the generation (see generationHint).
    const generation = this.c.generationHint();
    return new Map(generation === undefined ? await load() : await this.c.memo.get(generation, `kinds\n${workspace}\n${names.join('\n')}`, load));
  }

  async nodeTypesPresent(workspace: string): Promise<string[]> {
    const load = async () => (await this.c.read((db) => run<{ type: string }>(db, SQL.types, [workspace]))).map((r) => r.type);
    const generation = this.c.generationHint();
    return [...(generation === undefined ? await load() : await this.c.memo.get(generation, `types\n${workspace}`, load))];
  }

  async countNodes(workspace?: string): Promise<number> {
    const rows = await this.c.read((db) => workspace === undefined
      ? run<{ n: number }>(db, SQL.countAll)
      : run<{ n: number }>(db, SQL.countWs, [workspace]));
    return rows[0]!.n;
  }

  async listWorkspaces(): Promise<string[]> {
    return (await this.c.read((db) => run<{ workspace: string }>(db, SQL.workspaces))).map((r) => r.workspace);
  }
}
