// SQLite backend: the store's reads (NodeReads) on the reading connection, which sees the last commit
// (WAL): nodes by path and id, subtrees, pages of children, queries (the in-memory query index for
// workspaces at or above `queryIndexThreshold`, SQL otherwise), property kinds and node types memoized
// per generation.
import type { Database as Connection } from 'better-sqlite3';
import type { NodeReads, QueryResult, ReadableCondition } from '../content-store.js';
import type { StoreQuery, ValueKind } from '../../query/ast.js';
import type { NodeRecord } from '../rows.js';
import type { ChildPageRequest } from '../child-pages.js';
import { descendantRange } from '../../model/paths.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import { QueryIndex } from '../query-index/query-index.js';
import type { GenerationMemo } from '../generation-memo.js';
import { ftsMatch } from './compile-query.js';
import { sqlKinds, sqlQuery } from './sql-query.js';
import { childrenPages, subtrees } from './subtree-reads.js';
import type { StatementCache } from './statement-cache.js';
import type { Statements } from './statements.js';

/** What the reads use of the open store (each getter throws once it is closed). */
export interface SqliteReadContext {
  readonly db: () => Connection;
  readonly statements: () => Statements;
  readonly cache: StatementCache;
  readonly index: QueryIndex;
  readonly memo: GenerationMemo;
  readonly indexThreshold: number;
  /** The generation read in the last 100 ms, without a round trip (store.ts generationHint). */
  readonly generationHint: () => number | undefined;
  readonly generation: () => Promise<number>;
  /** Nodes of the workspace (cached per generation). */
  readonly workspaceSize: (workspace: string, generation: number) => number;
}

export class SqliteReads implements NodeReads {
  constructor(private readonly c: SqliteReadContext) {}

  get #s(): Statements {
    return this.c.statements();
  }

  async ping(): Promise<boolean> {
    return this.#s.ping.get() !== undefined;
  }

  async getNode(workspace: string, path: string): Promise<NodeRecord | undefined> {
    const row = this.#s.byPath.get(workspace, path) as NodeRow | undefined;
    return row && toRecord(row);
  }

  async getNodeById(workspace: string, id: string): Promise<NodeRecord | undefined> {
    const row = this.#s.byId.get(workspace, id) as NodeRow | undefined;
    return row && toRecord(row);
  }

  async getNodesByIds(workspace: string, ids: readonly string[]): Promise<NodeRecord[]> {
    if (ids.length === 0) return [];
    return (this.#s.byIds.all(workspace, JSON.stringify(ids)) as NodeRow[]).map(toRecord);
  }

  async getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]> {
    const out: NodeRecord[] = [];
    let baseDepth = 0;
    if (path !== '/') {
      const root = this.#s.byPath.get(workspace, path) as NodeRow | undefined;
      if (!root) return out;
      out.push(toRecord(root));
      baseDepth = root.depth;
    }
    if (depth <= 0) return out;
    const [lo, hi] = descendantRange(path);
    for (const r of this.#s.subtree.all(workspace, lo, hi, baseDepth + depth) as NodeRow[]) out.push(toRecord(r));
    return out;
  }

  async getChildrenPages(workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<NodeRecord[]> {
    return childrenPages(this.c.db(), this.#s, workspace, parents, limit);
  }

  async getSubtrees(workspace: string, paths: readonly string[], depth: number): Promise<NodeRecord[]> {
    return subtrees(this.c.db(), this.#s, workspace, paths, depth);
  }

  async query(q: StoreQuery): Promise<QueryResult> {
    if (QueryIndex.supports(q) && (await this.#workspaceSize(q.workspace)) >= this.c.indexThreshold) {
      return this.c.index.run(q, ftsMatch(q));
    }
    return sqlQuery(this.c.db(), this.c.cache, q);
  }

  async #workspaceSize(workspace: string): Promise<number> {
    if (this.c.indexThreshold === 0) return 0;
    if (!Number.isFinite(this.c.indexThreshold)) return -1;
    // A hint is enough for a threshold (this process's writes clear it; another's are seen within 100 ms).
    return this.c.workspaceSize(workspace, this.c.generationHint() ?? await this.c.generation());
  }

  async propertyKinds(workspace: string, names: readonly string[], readable?: ReadableCondition): Promise<Map<string, ValueKind[]>> {
    if (names.length === 0) return new Map();
    if (readable === undefined) {
      const kinds = await this.c.memo.get(this.c.generationHint() ?? await this.c.generation(), `kinds\n${workspace}\n${names.join('\n')}`, () => this.#kinds(workspace, names));
      return new Map(kinds);
    }
    return this.#kinds(workspace, names, readable);
  }

  async #kinds(workspace: string, names: readonly string[], readable?: ReadableCondition): Promise<Map<string, ValueKind[]>> {
    if (readable && (await this.#workspaceSize(workspace)) >= this.c.indexThreshold) {
      return this.c.index.kinds(workspace, names, readable);
    }
    return sqlKinds(this.c.db(), this.c.cache, this.#s, workspace, names, readable);
  }

  async nodeTypesPresent(workspace: string): Promise<string[]> {
    const load = () => (this.#s.types.all(workspace) as { type: string }[]).map((r) => r.type);
    return [...(await this.c.memo.get(this.c.generationHint() ?? await this.c.generation(), `types\n${workspace}`, load))];
  }

  async countNodes(workspace?: string): Promise<number> {
    return ((workspace === undefined ? this.#s.countAll.get() : this.#s.countWs.get(workspace)) as { n: number }).n;
  }

  async listWorkspaces(): Promise<string[]> {
    return (this.#s.workspaces.all() as { workspace: string }[]).map((r) => r.workspace);
  }
}
