// SQLite backend: compiles a StoreQuery into a count statement and a page statement. Names of
// properties and all values are bound parameters; only fixed SQL text is written here.
import type { Condition, StoreQuery, Target, TypedRange } from '../../query/ast.js';
import { descendantRange } from '../../model/paths.js';
import { SqlWriter, type CompiledSql } from '../sql/sql-writer.js';
import { uuidEqualities } from '../query-index/column-scan.js';
import { KIND_CODES } from '../query-index/column-source.js';

export const NODE_COLUMNS = 'n.id, n.workspace, n.path, n.parent_path, n.name, n.depth, n.position, n.type, n.mixins, n.props';

const placeholder = () => '?';

/** Longer lists of exact values are bound as one JSON array. */
const MAX_INLINE_VALUES = 16;

/** Column of `nodes n` a node target compares. */
function nodeColumn(t: Exclude<Target, { kind: 'property' }>): string {
  switch (t.kind) {
    case 'name': return 'n.name';
    case 'path': return 'n.path';
    case 'uuid': return 'n.id';
    case 'type': return 'n.type';
  }
}

function writeBound(w: SqlWriter, column: string, r: TypedRange): void {
  const parts: (() => void)[] = [];
  if (r.lo && r.hi && r.lo.inclusive && r.hi.inclusive && r.lo.value === r.hi.value) {
    parts.push(() => w.text(`${column} = `).value(r.lo!.value));
  } else {
    if (r.lo) parts.push(() => w.text(`${column} ${r.lo!.inclusive ? '>=' : '>'} `).value(r.lo!.value));
    if (r.hi) parts.push(() => w.text(`${column} ${r.hi!.inclusive ? '<=' : '<'} `).value(r.hi!.value));
  }
  if (parts.length === 0) w.text('1');
  parts.forEach((p, i) => {
    if (i > 0) w.text(' AND ');
    p();
  });
}

function writePropertyRange(w: SqlWriter, r: TypedRange): void {
  const column = r.kind === 'number' || r.kind === 'date' ? 'p.n' : 'p.s';
  w.text(`(p.kind = ${KIND_CODES[r.kind]} AND `);
  writeBound(w, column, r);
  w.text(')');
}

/** The node has a value of property `name` (matching `body`): its index rows derived from its document. */
function writePropertySet(w: SqlWriter, name: string, body?: () => void): void {
  w.text('EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ').value(name);
  if (body) {
    w.text(' AND (');
    body();
    w.text(')');
  }
  w.text(')');
}

function writeCondition(w: SqlWriter, c: Condition): void {
  switch (c.kind) {
    case 'never':
      w.text('0');
      return;
    case 'readable':
      if (c.rules.length === 0) {
        w.text('0');
        return;
      }
      w.text('(CASE');
      for (const r of c.rules) w.text(' WHEN n.path GLOB ').value(ruleToGlob(r.pattern)).text(r.read ? ' THEN 1' : ' THEN 0');
      w.text(' ELSE 0 END) = 1');
      return;
    case 'exists':
      if (!c.exists) w.text('NOT ');
      writePropertySet(w, c.name);
      return;
    case 'childOf':
      w.text('n.parent_path = ').value(c.path);
      return;
    case 'descendantOf':
      if (c.negate) w.text('NOT ');
      w.text('(');
      c.paths.forEach((path, i) => {
        const [lo, hi] = descendantRange(path);
        if (i > 0) w.text(' OR ');
        w.text('(n.path >= ').value(lo).text(' AND n.path < ').value(hi).text(')');
      });
      w.text(')');
      return;
    case 'like': {
      const t = c.target;
      // like_match (statements.ts) is the query index's matcher: linear, and the same answers.
      if (c.negate) w.text('NOT ');
      if (t.kind === 'property') {
        writePropertySet(w, t.name, () => c.patterns.forEach((g, i) => {
          if (i > 0) w.text(' OR ');
          w.text(c.caseInsensitive ? 'like_match(p.f, ' : 'like_match(p.s, ').value(g).text(')');
        }));
      } else {
        const col = c.caseInsensitive ? `fold(${nodeColumn(t)})` : nodeColumn(t);
        w.text('(');
        c.patterns.forEach((g, i) => {
          if (i > 0) w.text(' OR ');
          w.text(`like_match(${col}, `).value(g).text(')');
        });
        w.text(')');
      }
      return;
    }
    case 'ranges': {
      const t = c.target;
      if (t.kind === 'property') {
        const any = () => c.ranges.forEach((r, i) => {
          if (i > 0) w.text(' OR ');
          writePropertyRange(w, r);
        });
        if (c.negate) {
          writePropertySet(w, t.name);
          w.text(' AND NOT ');
        }
        if (c.ranges.length === 0) w.text('0');
        else writePropertySet(w, t.name, any);
      } else {
        const col = nodeColumn(t);
        const exact = c.ranges.length > MAX_INLINE_VALUES ? uuidEqualities(c.ranges) : undefined;
        if (exact !== undefined) {
          // One parameter for the whole list: SQLite refuses statements with over 32,766 of them.
          w.text(`${col} ${c.negate ? 'NOT IN' : 'IN'} (SELECT value FROM json_each(`).value(JSON.stringify(exact)).text('))');
          return;
        }
        w.text(c.negate ? 'NOT (' : '(');
        if (c.ranges.length === 0) w.text('0');
        c.ranges.forEach((r, i) => {
          if (i > 0) w.text(' OR ');
          w.text('(');
          writeBound(w, col, r);
          w.text(')');
        });
        w.text(')');
      }
      return;
    }
  }
}

/** A permission pattern (`*` = any run) as a GLOB pattern: GLOB's `?` and `[` made literal. */
function ruleToGlob(pattern: string): string {
  return pattern.replace(/[?[]/g, (c) => `[${c}]`);
}

/** `"word"` or `"word"*`, ANDed: the words hold letters and digits only, so quoting is safe. */
export function ftsMatch(q: StoreQuery): string {
  return q.fullText.map((t) => `"${t.word}"${t.prefix ? '*' : ''}`).join(' ');
}

function writeWhere(w: SqlWriter, q: StoreQuery): void {
  w.text(' WHERE n.workspace = ').value(q.workspace);
  if (q.rootPath !== '/') {
    const [lo, hi] = descendantRange(q.rootPath);
    w.text(' AND n.path >= ').value(lo).text(' AND n.path < ').value(hi);
  }
  if (q.types !== null) {
    if (q.types.length === 0) w.text(' AND 0');
    else w.text(' AND n.type IN ').list(q.types);
  }
  for (const c of q.conditions) {
    w.text(' AND ');
    writeCondition(w, c);
  }
  if (q.fullText.length > 0) w.text(' AND n.nid IN (SELECT rowid FROM fts WHERE fts MATCH ').value(ftsMatch(q)).text(')');
}

export function compileCount(q: StoreQuery): CompiledSql {
  const w = new SqlWriter(placeholder).text('SELECT count(*) AS total FROM nodes n');
  writeWhere(w, q);
  return w.build();
}

export function compilePage(q: StoreQuery): CompiledSql {
  const w = new SqlWriter(placeholder).text(`SELECT ${NODE_COLUMNS} FROM nodes n`);
  q.orderBy.forEach((o, i) => {
    if (o.target.kind !== 'property') return;
    w.text(` LEFT JOIN index_rows(n.props) o${i} ON o${i}.name = `).value(o.target.name).text(` AND o${i}.pos = 0`);
  });
  writeWhere(w, q);
  const keys: string[] = [];
  q.orderBy.forEach((o, i) => {
    const dir = o.descending ? ' DESC' : '';
    switch (o.target.kind) {
      case 'property': keys.push(`(o${i}.name IS NULL)`, `o${i}.n${dir}`, `o${i}.f${dir}`); break;
      case 'name': keys.push(`fold(n.name)${dir}`, `n.name${dir}`); break;
      case 'path': keys.push(`fold(n.path)${dir}`, `n.path${dir}`); break;
      case 'uuid': keys.push(`n.id${dir}`); break;
      case 'type': keys.push(`n.type${dir}`); break;
    }
  });
  keys.push('n.path');
  w.text(` ORDER BY ${keys.join(', ')} LIMIT `).value(q.limit).text(' OFFSET ').value(q.offset);
  return w.build();
}

/** Kinds of properties among readable nodes only (restricted callers, small workspaces). */
export function compileKinds(workspace: string, names: readonly string[], readable: Condition): CompiledSql {
  const w = new SqlWriter(placeholder)
    .text('SELECT DISTINCT p.name AS name, p.kind AS kind FROM nodes n, index_rows(n.props) p WHERE n.workspace = ').value(workspace)
    .text(' AND p.name IN ').list(names)
    .text(' AND ');
  writeCondition(w, readable);
  return w.build();
}
