// SQLite store: which build of better-sqlite3 this Node.js loads. Versions before 13 wrap statements in
// node::ObjectWrap, whose destructor on Node.js 24.19 and later aborts the process when a garbage
// collection outside JavaScript finalizes a statement (`Assertion failed: (env) != nullptr`): the
// suite and a serving process died at random. Version 13 (node-addon-api) does not, but it needs
// Node.js 22 and crashes on 20. So both are installed (13 as `better-sqlite3-13`, optional), and
// Node.js 22 and later load 13; Node.js 20 (or an install without the optional package) loads 12.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The resolved file of the module to load: worker threads open their own connections from it. */
export const DRIVER_MODULE: string = driverModule();

/** The better-sqlite3 constructor (its API is the same in 12 and 13). */
const Database = require(DRIVER_MODULE) as typeof BetterSqlite3;
export default Database;

function driverModule(): string {
  if (NODE_MAJOR >= 22) {
    try {
      return require.resolve('better-sqlite3-13');
    } catch {
      // Not installed (an optional dependency): 12 works on Node.js 22 and on 24 before 24.19.
    }
  }
  return require.resolve('better-sqlite3');
}
