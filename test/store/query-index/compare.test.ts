// The query index's string order and like matching must agree with SQLite's BINARY order and GLOB.
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { compareCodePoints, likeToRegExp } from '../../../src/store/query-index/compare.js';
import { likeToGlob } from '../../../src/store/sql/sql-writer.js';

const db = new Database(':memory:');
const glob = db.prepare('SELECT ? GLOB ? AS m').pluck();
const order = db.prepare("SELECT value FROM json_each(?) ORDER BY value COLLATE BINARY").pluck();

describe('query index comparisons', () => {
  it('orders strings by code point, as SQLite BINARY does', () => {
    const values = ['b', 'B', 'a', 'é', 'z', '😀', '\uffee', 'A-1', 'a b', '', 'ü', 'Z'];
    const sqlite = order.all(JSON.stringify(values)) as string[];
    expect([...values].sort(compareCodePoints)).toEqual(sqlite);
  });

  it('matches like patterns exactly as the GLOB translation does, special characters included', () => {
    const patterns = ['%-%', 'a_c', '%\\%%', '100\\%', '[x]%', '%.*+?^$(){}|/-', '_', '%', 'a\\_b', '%ü%', '😀%', 'x\\'];
    const inputs = ['a-b', 'abc', 'a%b', '100%', '[x]yz', 'q.*+?^$(){}|/-', 'é', '', 'a_b', 'axb', 'grün', '😀!', 'x\\', 'multi\nline-x'];
    for (const p of patterns) {
      const re = likeToRegExp(p);
      for (const s of inputs) {
        expect(re.test(s), `${JSON.stringify(s)} like ${JSON.stringify(p)}`).toBe(glob.get(s, likeToGlob(p)) === 1);
      }
    }
  });
});
