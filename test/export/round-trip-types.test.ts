// The export writers: every property type, escaping and binaries survive export → `petal import`, in
// both formats, and what comes back is the node records that went out (ids, order, types, values).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPaths } from '../../src/ingest/run-import.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { prepareExport } from '../../src/export/export-subtree.js';
import { storeSource } from '../../src/export/walk-tree.js';
import type { ExportFormat } from '../../src/export/export-file-name.js';
import { quoteYaml, yamlScalar } from '../../src/export/write-yaml.js';
import { escapeXmlAttribute, escapeXmlText } from '../../src/export/write-jcr-xml.js';
import type { NodeRecord } from '../../src/store/rows.js';
import { BLOB_CHUNK_BYTES } from '../../src/assets/read-binary.js';

const HARD_TEXT = 'a "quoted" \\ back\nslash\r\n\ttab <&> ]]> \u0001\u001f\u007f\u0085\u2028 😀 é #: - ? * & ! | > \' %';
/** Bigger than one stored chunk and not a multiple of 3, so the base64 crosses chunks with a carry. */
const BIG = Buffer.alloc(BLOB_CHUNK_BYTES + 7);
for (let i = 0; i < BIG.length; i++) BIG[i] = (i * 7919) % 251;

function xmlText(text: string): string {
  return text.replace(/[&<>"\u0000-\u001f\u007f-\u009f]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SOURCE = `<?xml version="1.0" encoding="UTF-8"?>
<sv:node sv:name="home" xmlns:sv="http://www.jcp.org/jcr/sv/1.0">
  <sv:property sv:name="jcr:primaryType" sv:type="Name"><sv:value>mgnl:page</sv:value></sv:property>
  <sv:property sv:name="jcr:mixinTypes" sv:type="Name" sv:multiple="true"><sv:value>mix:referenceable</sv:value><sv:value>mgnl:hasVersion</sv:value></sv:property>
  <sv:property sv:name="jcr:uuid" sv:type="String"><sv:value>11111111-1111-1111-1111-111111111111</sv:value></sv:property>
  <sv:property sv:name="mgnl:created" sv:type="Date"><sv:value>2020-02-01T13:45:49.952+07:00</sv:value></sv:property>
  <sv:property sv:name="hard" sv:type="String"><sv:value>${xmlText(HARD_TEXT)}</sv:value></sv:property>
  <sv:property sv:name="${xmlText('we"ird: name #1 😀')}" sv:type="String"><sv:value>x</sv:value></sv:property>
  <sv:property sv:name="looksTrue" sv:type="String"><sv:value>true</sv:value></sv:property>
  <sv:property sv:name="looksNumber" sv:type="String"><sv:value>0123</sv:value></sv:property>
  <sv:property sv:name="looksDate" sv:type="String"><sv:value>2020-01-01</sv:value></sv:property>
  <sv:property sv:name="looksNull" sv:type="String"><sv:value>~</sv:value></sv:property>
  <sv:property sv:name="empty" sv:type="String"><sv:value></sv:value></sv:property>
  <sv:property sv:name="spaces" sv:type="String"><sv:value>  padded  </sv:value></sv:property>
  <sv:property sv:name="long" sv:type="Long"><sv:value>-42</sv:value></sv:property>
  <sv:property sv:name="hugeLong" sv:type="Long"><sv:value>1000000000000000000000</sv:value></sv:property>
  <sv:property sv:name="wholeDouble" sv:type="Double"><sv:value>3</sv:value></sv:property>
  <sv:property sv:name="double" sv:type="Double"><sv:value>-1.5e-7</sv:value></sv:property>
  <sv:property sv:name="infinite" sv:type="Double"><sv:value>Infinity</sv:value></sv:property>
  <sv:property sv:name="decimal" sv:type="Decimal"><sv:value>12.50</sv:value></sv:property>
  <sv:property sv:name="flag" sv:type="Boolean"><sv:value>false</sv:value></sv:property>
  <sv:property sv:name="ref" sv:type="Reference"><sv:value>22222222-2222-2222-2222-222222222222</sv:value></sv:property>
  <sv:property sv:name="weak" sv:type="WeakReference"><sv:value>22222222-2222-2222-2222-222222222222</sv:value></sv:property>
  <sv:property sv:name="aName" sv:type="Name"><sv:value>mgnl:component</sv:value></sv:property>
  <sv:property sv:name="aPath" sv:type="Path"><sv:value>/home/child</sv:value></sv:property>
  <sv:property sv:name="aUri" sv:type="URI"><sv:value>https://example.com/?a=1&amp;b=2</sv:value></sv:property>
  <sv:property sv:name="tags" sv:type="String" sv:multiple="true"><sv:value>a</sv:value><sv:value>${xmlText(HARD_TEXT)}</sv:value></sv:property>
  <sv:property sv:name="oneTag" sv:type="String" sv:multiple="true"><sv:value>only</sv:value></sv:property>
  <sv:property sv:name="noTags" sv:type="String" sv:multiple="true"></sv:property>
  <sv:property sv:name="longs" sv:type="Long" sv:multiple="true"><sv:value>1</sv:value><sv:value>2</sv:value></sv:property>
  <sv:property sv:name="doubles" sv:type="Double" sv:multiple="true"><sv:value>1</sv:value><sv:value>2.5</sv:value></sv:property>
  <sv:property sv:name="dates" sv:type="Date" sv:multiple="true"><sv:value>2021-03-04T05:06:07.008Z</sv:value></sv:property>
  <sv:property sv:name="bools" sv:type="Boolean" sv:multiple="true"><sv:value>true</sv:value><sv:value>false</sv:value></sv:property>
  <sv:property sv:name="weaks" sv:type="WeakReference" sv:multiple="true"><sv:value>22222222-2222-2222-2222-222222222222</sv:value></sv:property>
  <sv:property sv:name="small" sv:type="Binary"><sv:value>aGVsbG8=</sv:value></sv:property>
  <sv:property sv:name="nothing" sv:type="Binary"><sv:value></sv:value></sv:property>
  <sv:property sv:name="big" sv:type="Binary"><sv:value>${BIG.toString('base64')}</sv:value></sv:property>
  <sv:node sv:name="child">
    <sv:property sv:name="jcr:primaryType" sv:type="Name"><sv:value>mgnl:component</sv:value></sv:property>
    <sv:property sv:name="jcr:uuid" sv:type="String"><sv:value>22222222-2222-2222-2222-222222222222</sv:value></sv:property>
    <sv:node sv:name="${xmlText('z "odd" <name> 😀')}">
      <sv:property sv:name="jcr:primaryType" sv:type="Name"><sv:value>mgnl:contentNode</sv:value></sv:property>
      <sv:property sv:name="jcr:uuid" sv:type="String"><sv:value>33333333-3333-3333-3333-333333333333</sv:value></sv:property>
    </sv:node>
    <sv:node sv:name="a">
      <sv:property sv:name="jcr:primaryType" sv:type="Name"><sv:value>mgnl:contentNode</sv:value></sv:property>
      <sv:property sv:name="jcr:uuid" sv:type="String"><sv:value>44444444-4444-4444-4444-444444444444</sv:value></sv:property>
    </sv:node>
  </sv:node>
  <sv:node sv:name="mgnl:apex">
    <sv:property sv:name="jcr:primaryType" sv:type="Name"><sv:value>mgnl:area</sv:value></sv:property>
    <sv:property sv:name="jcr:uuid" sv:type="String"><sv:value>55555555-5555-5555-5555-555555555555</sv:value></sv:property>
  </sv:node>
</sv:node>
`;

let dir: string;
let source: SqliteStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-export-types-'));
  writeFileSync(join(dir, 'website.site.home.xml'), SOURCE);
  source = new SqliteStore({ file: join(dir, 'source.db') });
  await source.open();
  await importPaths(source, [join(dir, 'website.site.home.xml')], { onUuidCollision: 'fail' });
});
afterAll(async () => {
  await source.close();
  rmSync(dir, { recursive: true, force: true });
});

async function exportToFile(store: SqliteStore, workspace: string, path: string, format: ExportFormat, folder: string): Promise<string> {
  const prepared = await prepareExport(storeSource(store.reads), store.blobs, workspace, path, format);
  if (!prepared.ok) throw new Error(prepared.reason);
  const chunks: Buffer[] = [];
  for await (const chunk of prepared.open()) chunks.push(chunk as Buffer);
  const file = join(folder, prepared.fileName);
  writeFileSync(file, Buffer.concat(chunks));
  return file;
}

async function readBack(file: string, name: string): Promise<{ store: SqliteStore; records: NodeRecord[] }> {
  const store = new SqliteStore({ file: join(dir, `${name}.db`) });
  await store.open();
  await importPaths(store, [file], { onUuidCollision: 'fail' });
  return { store, records: await store.reads.getSubtree('website', '/site/home', 10) };
}

describe('export writers: what goes out comes back', () => {
  for (const format of ['yaml', 'xml'] as const) {
    it(`${format}: every type, hard names and values, multi-values and binaries round-trip to the same records`, async () => {
      const expected = await source.reads.getSubtree('website', '/site/home', 10);
      expect(expected).toHaveLength(5);
      const file = await exportToFile(source, 'website', '/site/home', format, dir);
      expect(file.endsWith(`website.site.home.${format}`)).toBe(true);
      const back = await readBack(file, `back-${format}`);
      try {
        expect(back.records).toEqual(expected);
        const big = expected[0]!.properties.find((p) => p[0] === 'big')![2] as string;
        expect(await back.store.blobs.read(big, 0, BIG.length)).toEqual(BIG);
        expect(await back.store.blobs.info(expected[0]!.properties.find((p) => p[0] === 'nothing')![2] as string)).toMatchObject({ size: 0 });
      } finally {
        await back.store.close();
      }
    });
  }

  it('xml: a whole workspace exports under jcr:root as <workspace>.xml and comes back the same', async () => {
    const file = await exportToFile(source, 'website', '/', 'xml', dir);
    expect(file.endsWith('website.xml')).toBe(true);
    const back = await readBack(file, 'back-root');
    try {
      expect(await back.store.reads.getSubtree('website', '/', 10)).toEqual(await source.reads.getSubtree('website', '/', 10));
    } finally {
      await back.store.close();
    }
  });

  it('names system properties and types with mgnl: as the original\'s exports do', async () => {
    const prepared = await prepareExport(storeSource(source.reads), source.blobs, 'website', '/site/home/cms:apex', 'yaml');
    if (!prepared.ok) throw new Error(prepared.reason);
    let text = '';
    for await (const chunk of prepared.open()) text += String(chunk);
    expect(text).toBe('"mgnl:apex":\n  "jcr:primaryType": "mgnl:area"\n  "jcr:uuid": "55555555-5555-5555-5555-555555555555"\n');
  });

  it('refuses what an export file name cannot place, and a missing node', async () => {
    expect(await prepareExport(storeSource(source.reads), source.blobs, 'website', '/', 'yaml')).toMatchObject({ ok: false, problem: 'unnamable' });
    expect(await prepareExport(storeSource(source.reads), source.blobs, 'website', '/a.b/c', 'xml')).toMatchObject({ ok: false, problem: 'unnamable' });
    expect(await prepareExport(storeSource(source.reads), source.blobs, 'website', '/site/nope', 'xml')).toMatchObject({ ok: false, problem: 'missing' });
  });
});

describe('escaping', () => {
  it('YAML double-quoted scalars escape quotes, backslashes, breaks and unprintable characters', () => {
    expect(quoteYaml('a"b\\c\nd\u0001\u2028\ud800')).toBe('"a\\"b\\\\c\\nd\\u0001\\u2028\\ud800"');
    expect(yamlScalar('Double', 3)).toBe('!double "3"');
    expect(yamlScalar('Long', 3)).toBe('3');
    expect(yamlScalar('Long', 1e21)).toBe('!long "1e+21"');
    expect(yamlScalar('WeakReference', 'x')).toBe('!weakreference "x"');
    expect(yamlScalar('Boolean', true)).toBe('true');
    expect(yamlScalar('String', 'true')).toBe('"true"');
  });

  it('XML escapes markup and control characters as references', () => {
    expect(escapeXmlText('<a&b>\r\u0001"')).toBe('&lt;a&amp;b&gt;&#13;&#1;"');
    expect(escapeXmlAttribute('"x"\n')).toBe('&quot;x&quot;&#10;');
  });
});
