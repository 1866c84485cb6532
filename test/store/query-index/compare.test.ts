// The query index's string order must agree with SQLite's BINARY order.
import { describe, expect, it } from 'vitest';
import Database from '../../../src/store/sqlite/driver.js';
import { compareCodePoints } from '../../../src/store/query-index/compare.js';

const db = new Database(':memory:');
const order = db.prepare("SELECT value FROM json_each(?) ORDER BY value COLLATE BINARY").pluck();

describe('query index comparisons', () => {
  it('orders strings by code point, as SQLite BINARY does', () => {
    const values = ['b', 'B', 'a', 'é', 'z', '😀', '\uffee', 'A-1', 'a b', '', 'ü', 'Z'];
    const sqlite = order.all(JSON.stringify(values)) as string[];
    expect([...values].sort(compareCodePoints)).toEqual(sqlite);
  });
});
