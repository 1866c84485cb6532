// JCR XML reader benchmark (issue 31): the same system-view export read by the htmlparser2-based reader
// (test/ingest/fixtures) and by the specialised scanner (src/ingest/import-jcr-xml.ts) into a sink that
// only counts, so the figure is the parsing alone. Usage:
//   node --import tsx bench/xml-parse.ts [FILE.xml] [--nodes 100000] [--rounds 3]
// Without FILE a product export of `--nodes` nodes is generated (test/helpers/product-exports.ts).
// The file is decoded into 256 KiB chunks first (as src/ingest/read-export.ts feeds them), then each
// reader reads those chunks `--rounds` times, alternating; the best round and the GC time are printed.
// The tokenizers alone (htmlparser2's Parser, the SystemViewScanner, with callbacks that do nothing) are
// timed the same way: the part of the reading this change replaced.
import { execSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { Parser } from 'htmlparser2';
import { parseArgs } from 'node:util';
import type { DraftSink } from '../src/ingest/draft-sink.js';
import { JcrXmlExportReader } from '../src/ingest/import-jcr-xml.js';
import { SystemViewScanner } from '../src/ingest/system-view-scanner.js';
import { JcrXmlExportReader as Htmlparser2Reader } from '../test/ingest/fixtures/htmlparser2-jcr-xml-reader.js';
import { writeProductsXml } from '../test/helpers/product-exports.js';

const READ_CHUNK = 256 * 1024;

class CountingSink implements DraftSink {
  nodes = 0;
  properties = 0;
  openNode(): void {
    this.nodes++;
  }
  property(): void {
    this.properties++;
  }
  closeNode(): void {}
}

type Reader = { write(chunk: string): void; end(): void; settled(): Promise<void>; abort(): Promise<void> };
type ReaderClass = new (file: string, spoolDir: string, sink: DraftSink) => Reader;

let gcMs = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
});
gcObserver.observe({ entryTypes: ['gc'] });

async function round(Reader: ReaderClass, chunks: readonly string[], spoolDir: string): Promise<Round> {
  const sink = new CountingSink();
  const reader = new Reader('bench.xml', spoolDir, sink);
  return timed(async () => {
    for (const chunk of chunks) {
      reader.write(chunk);
      await reader.settled();
    }
    reader.end();
    await reader.settled();
    return sink.nodes;
  });
}

/** A tokenizer alone: elements counted, nothing else done. */
function tokenizerRound(name: 'htmlparser2' | 'scanner', chunks: readonly string[]): Promise<Round> {
  return timed(async () => {
    let elements = 0;
    if (name === 'htmlparser2') {
      const parser = new Parser({ onopentag: () => { elements++; }, ontext: () => {}, onclosetag: () => {} }, { xmlMode: true, decodeEntities: true });
      for (const chunk of chunks) parser.write(chunk);
      parser.end();
    } else {
      const scanner = new SystemViewScanner({
        openElement: () => { elements++; }, closeElement: () => {}, text: () => {}, declaration: () => {}, endInsideStartTag: () => {},
      });
      for (const chunk of chunks) scanner.write(chunk);
      scanner.end();
    }
    return elements;
  });
}

interface Round { ms: number; gcMs: number; count: number }

async function timed(run: () => Promise<number>): Promise<Round> {
  // Collections of the previous round are reported late: wait for them before counting this round's.
  await new Promise((resolve) => setTimeout(resolve, 50));
  gcMs = 0;
  const start = process.hrtime.bigint();
  const count = await run();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const entry of gcObserver.takeRecords()) gcMs += entry.duration;
  return { ms, gcMs, count };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { nodes: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '3' } },
  });
  const scratch = await mkdtemp(join(tmpdir(), 'petal-xml-bench-'));
  try {
    let file = positionals[0];
    if (file === undefined) {
      file = join(scratch, 'products.products.xml');
      await writeProductsXml(file, { nodes: Number(values.nodes) });
    }
    const bytes = await readFile(file);
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    const chunks: string[] = [];
    for (let at = 0; at < bytes.length; at += READ_CHUNK) {
      const text = decoder.decode(bytes.subarray(at, at + READ_CHUNK), { stream: true });
      if (text !== '') chunks.push(text);
    }
    const rest = decoder.decode();
    if (rest !== '') chunks.push(rest);
    console.log(`${file}: ${(bytes.length / 1e6).toFixed(1)} MB in ${chunks.length} chunks; ${execSync('uptime').toString().trim()}`);

    const readers: Array<[string, ReaderClass]> = [['htmlparser2', Htmlparser2Reader], ['scanner', JcrXmlExportReader]];
    const best = new Map<string, Round>();
    const keep = (name: string, result: Round): void => {
      const previous = best.get(name);
      if (!previous || result.ms < previous.ms) best.set(name, result);
    };
    for (let r = 0; r < Number(values.rounds); r++) {
      for (const [name, Reader] of readers) {
        const result = await round(Reader, chunks, join(scratch, 'spool'));
        console.log(`  round ${r + 1} reader    ${name.padEnd(11)} ${result.ms.toFixed(0).padStart(6)} ms  gc ${result.gcMs.toFixed(0).padStart(4)} ms  ${result.count} nodes`);
        keep(`reader ${name}`, result);
      }
    }
    // The tokenizers after the readers: the scanner's calls to its events would no longer be monomorphic.
    for (let r = 0; r < Number(values.rounds); r++) {
      for (const name of ['htmlparser2', 'scanner'] as const) {
        const result = await tokenizerRound(name, chunks);
        console.log(`  round ${r + 1} tokenizer ${name.padEnd(11)} ${result.ms.toFixed(0).padStart(6)} ms  gc ${result.gcMs.toFixed(0).padStart(4)} ms  ${result.count} elements`);
        keep(`tokenizer ${name}`, result);
      }
    }
    const nodes = best.get('reader scanner')!.count;
    for (const [name, result] of best) {
      const perSecond = nodes / (result.ms / 1000);
      const mbPerSecond = bytes.length / 1e6 / (result.ms / 1000);
      console.log(`${name.padEnd(21)} best ${result.ms.toFixed(0).padStart(5)} ms: ${Math.round(perSecond).toLocaleString('en').padStart(9)} nodes/s, ${mbPerSecond.toFixed(0).padStart(3)} MB/s (gc ${result.gcMs.toFixed(0)} ms)`);
    }
    const ratio = (kind: string): string => (best.get(`${kind} htmlparser2`)!.ms / best.get(`${kind} scanner`)!.ms).toFixed(2);
    console.log(`scanner vs htmlparser2: reader ${ratio('reader')}× faster, tokenizer ${ratio('tokenizer')}× faster; ${execSync('uptime').toString().trim()}`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

await main();
