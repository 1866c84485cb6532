// A streamed YAML export (openExport) holds at most HELD_NODES nodes: a property of a node written after
// more nodes below it than that is refused, naming file and line; up to that many, it is taken. The XML
// side is tested in import-jcr-xml.test.ts, the rule itself in draft-stream.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HELD_NODES } from '../../src/ingest/draft-stream.js';
import { ImportError } from '../../src/ingest/import-error.js';
import { openExport } from '../../src/ingest/read-export.js';
import type { NodeEntry } from '../../src/repository/import-document.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petal-held-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Node `a` with `children` child nodes, then a property of `a` after them. */
function lateProperty(children: number): string {
  const kids = Array.from({ length: children }, (_, i) => `  c${i}:\n    jcr:primaryType: mgnl:content\n`).join('');
  return `a:\n  jcr:primaryType: mgnl:content\n${kids}  late: x\n`;
}

async function streamed(text: string): Promise<NodeEntry[]> {
  const file = join(dir, 'website.a.yaml');
  await writeFile(file, text);
  const doc = await openExport(file, { spoolDir: join(dir, 'blobs') });
  const out: NodeEntry[] = [];
  for await (const batch of doc.entries) out.push(...batch);
  return out;
}

describe('a streamed YAML export (openExport)', () => {
  it(`takes a property written after at most ${HELD_NODES} child nodes`, async () => {
    const entries = await streamed(lateProperty(HELD_NODES - 1));
    expect(entries).toHaveLength(HELD_NODES);
    expect(entries[0]!.draft.properties).toContainEqual(['late', 'String', 'x']);
  });

  it(`refuses a property written after more than ${HELD_NODES} child nodes, naming file and line`, async () => {
    const err = await streamed(lateProperty(HELD_NODES)).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect(err).toMatchObject({ file: join(dir, 'website.a.yaml'), line: 2 * HELD_NODES + 3 });
    expect((err as ImportError).reason).toMatch(new RegExp(`property "late" of node "a" comes after more than ${HELD_NODES} nodes below it`));
  });
});
