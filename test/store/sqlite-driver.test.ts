// Which better-sqlite3 the SQLite store loads (src/store/sqlite/driver.ts): 13 on Node.js 22 and later
// (12 aborts Node.js 24.19+ when a collection outside JavaScript finalizes a statement), 12 on Node.js
// 20, where 13 crashes. Both builds open, write and read the same way.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database, { DRIVER_MODULE } from '../../src/store/sqlite/driver.js';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The version of the package DRIVER_MODULE belongs to. */
function driverVersion(): string {
  let dir = dirname(DRIVER_MODULE);
  while (!dir.endsWith('node_modules/better-sqlite3') && !dir.endsWith('node_modules/better-sqlite3-13')) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('the SQLite driver', () => {
  it(`loads the build for Node.js ${NODE_MAJOR}`, () => {
    if (NODE_MAJOR >= 22) {
      expect(DRIVER_MODULE).toContain('/node_modules/better-sqlite3-13/');
      expect(driverVersion()).toMatch(/^13\./);
    } else {
      expect(DRIVER_MODULE).toContain('/node_modules/better-sqlite3/');
      expect(driverVersion()).toMatch(/^12\./);
    }
  });

  it('opens a database, writes in a transaction and reads back', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (a INTEGER, b TEXT)');
      const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
      db.transaction(() => { for (let i = 0; i < 100; i++) insert.run(i, `v${i}`); })();
      expect(db.prepare('SELECT count(*) AS n, max(b) AS m FROM t').get()).toEqual({ n: 100, m: 'v99' });
    } finally {
      db.close();
    }
  });
});
