// Child process of yaml-memory.test.ts, run under a capped heap: writes a generated products export
// of 200,000 products piece by piece, streams it through YamlExportReader into a counting sink, and
// prints what it counted. A reader that kept the document would run out of heap.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { DraftSink } from '../../src/ingest/draft-sink.js';
import { readYamlExport } from '../../src/ingest/import-yaml.js';
import { productExport } from '../helpers/yaml-export-generator.js';

const [dir, count] = process.argv.slice(2) as [string, string];
const file = join(dir, 'products.products.yaml');
const out = createWriteStream(file);
for (const piece of productExport(Number(count))) if (!out.write(piece)) await once(out, 'drain');
out.end();
await once(out, 'finish');

let nodes = 0;
let properties = 0;
let depth = 0;
let maxDepth = 0;
const sink: DraftSink = {
  openNode() { nodes++; maxDepth = Math.max(maxDepth, ++depth); },
  property() { properties++; },
  closeNode() { depth--; },
};
await readYamlExport(file, { spoolDir: join(dir, 'spool') }, sink);
process.stdout.write(JSON.stringify({ nodes, properties, maxDepth, open: depth }));
