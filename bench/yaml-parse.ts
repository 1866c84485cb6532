// Benchmark (issue 31): the whole-document YAML export reader (the test oracle) against the streamed
// YamlExportReader on a products export: nodes/s and peak RSS, each in its own process so that one's
// heap does not inflate the other's figure.
// Usage: node --import tsx bench/yaml-parse.ts [PRODUCTS=100000 | FILE.yaml]
//   (the parent writes the file if given a count, then runs `old` and `stream` children in turn)
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { PropertyType, ScalarValue } from '../src/model/property-type.js';
import type { DraftSink } from '../src/ingest/draft-sink.js';
import { readYamlExport } from '../src/ingest/import-yaml.js';
import { parseYamlExport as parseWhole } from '../test/ingest/fixtures/whole-yaml-export.js';
import { productExport } from '../test/helpers/yaml-export-generator.js';
import type { NodeDraft } from '../src/repository/import-document.js';

class CountingSink implements DraftSink {
  nodes = 0;
  properties = 0;
  openNode(_name: string, _line: number | undefined): void { this.nodes++; }
  property(_n: string, _t: PropertyType, _v: ScalarValue | readonly ScalarValue[], _l: number | undefined): void { this.properties++; }
  closeNode(): void {}
}

function countNodes(nodes: readonly NodeDraft[]): number {
  let n = 0;
  for (const node of nodes) n += 1 + countNodes(node.children);
  return n;
}

async function child(mode: string, file: string, spoolDir: string): Promise<void> {
  const start = performance.now();
  let nodes: number;
  if (mode === 'old') {
    nodes = countNodes((await parseWhole(file, { spoolDir })).roots);
  } else {
    const sink = new CountingSink();
    await readYamlExport(file, { spoolDir }, sink);
    nodes = sink.nodes;
  }
  const ms = performance.now() - start;
  // maxRSS is the process's peak resident set, in KiB.
  process.stdout.write(JSON.stringify({ mode, nodes, ms, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
}

async function main(): Promise<void> {
  const [arg = '100000'] = process.argv.slice(2);
  const dir = await mkdtemp(join(tmpdir(), 'petal-yaml-bench-'));
  try {
    let file = arg;
    if (/^\d+$/.test(arg)) {
      file = join(dir, 'products.products.yaml');
      const out = createWriteStream(file);
      for (const piece of productExport(Number(arg))) if (!out.write(piece)) await once(out, 'drain');
      out.end();
      await once(out, 'finish');
    }
    const size = (await stat(file)).size;
    console.log(`file: ${file} (${(size / 1e6).toFixed(1)} MB), load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const mode of ['old', 'stream']) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', mode, file, join(dir, `spool-${mode}`)], {
        encoding: 'utf8', maxBuffer: 1 << 20,
      });
      if (run.status !== 0) {
        console.log(`${mode}: failed (${run.status}) ${run.stderr.slice(-500)}`);
        continue;
      }
      const r = JSON.parse(run.stdout) as { nodes: number; ms: number; peakRssMb: number };
      console.log(`${mode.padEnd(6)} ${r.nodes} nodes in ${(r.ms / 1000).toFixed(2)} s = ${Math.round(r.nodes / (r.ms / 1000))} nodes/s, `
        + `${(size / 1e6 / (r.ms / 1000)).toFixed(1)} MB/s, peak RSS ${Math.round(r.peakRssMb)} MB`);
    }
    console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!, process.argv[5]!);
else await main();
