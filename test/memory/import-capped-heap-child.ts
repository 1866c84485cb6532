// Child process of import-capped-heap.test.ts, started with a capped heap: writes a product export of
// the given size and format, imports it into a fresh SQLite store, prints the nodes imported.
//   argv: <folder> <yaml|xml> <nodes>
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { writeProductsXml, writeProductsYaml } from '../helpers/product-exports.js';

const [dir, format, nodes] = process.argv.slice(2) as [string, 'yaml' | 'xml', string];
const file = join(dir, `shop.${format}`);
await (format === 'yaml' ? writeProductsYaml : writeProductsXml)(file, { nodes: Number(nodes) });
const store = new SqliteStore({ file: join(dir, 'store.db') });
await store.open();
const result = await importPaths(store, [file], { onUuidCollision: 'fail' });
await store.close();
process.stdout.write(`${JSON.stringify({ nodes: result.nodes, warnings: result.warnings.length })}\n`);
