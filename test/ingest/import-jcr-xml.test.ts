import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openExport, readExport as parseJcrXmlExport } from '../../src/ingest/read-export.js';
import { HELD_NODES } from '../../src/ingest/draft-stream.js';
import { ImportError } from '../../src/ingest/import-error.js';
import type { NodeDraft, NodeEntry } from '../../src/repository/import-document.js';
import type { StoredProperty } from '../../src/model/property-type.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';

const CORPUS_ASSETS = `${CORPORA}/travel-spa/magnolia/_dev/content-to-bootstrap/assets`;
let spoolDir: string;
beforeEach(async () => { spoolDir = await mkdtemp(join(tmpdir(), 'petal-xml-')); });
afterEach(async () => { await rm(spoolDir, { recursive: true, force: true }); });

function prop(node: NodeDraft, name: string): StoredProperty | undefined {
  return node.properties.find((p) => p[0] === name);
}

function child(node: NodeDraft, ...names: string[]): NodeDraft {
  let at = node;
  for (const name of names) {
    const next = at.children.find((c) => c.name === name);
    if (!next) throw new Error(`no child ${name} under ${at.name}`);
    at = next;
  }
  return at;
}

function* walk(nodes: readonly NodeDraft[]): Generator<NodeDraft> {
  for (const node of nodes) {
    yield node;
    yield* walk(node.children);
  }
}

/** The sha256 and size of every base64 jcr:data value in the file, decoded the simple way. */
async function expectedBinaries(file: string): Promise<Array<{ hash: string; size: number }>> {
  const text = await readFile(file, 'utf8');
  const values = [...text.matchAll(/sv:type="Binary"[^>]*>\s*<sv:value>([^<]*)<\/sv:value>/g)];
  return values.map(([, b64]) => {
    const bytes = Buffer.from(b64.replace(/\s+/g, ''), 'base64');
    return { hash: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  });
}

async function parseText(fileName: string, text: string) {
  const file = join(spoolDir, fileName);
  await writeFile(file, text);
  return parseJcrXmlExport(file, { spoolDir: join(spoolDir, 'blobs') });
}

const SV = 'xmlns:sv="http://www.jcp.org/jcr/sv/1.0"';

describe('parseJcrXmlExport on content exports', () => {
  it('reads types, multi-values, entities and empty values of the tours export', async () => {
    const file = join(FIXTURES, 'travel-spa', 'tours.magnolia-travels.xml');
    const doc = await parseJcrXmlExport(file, { spoolDir });
    expect(doc).toMatchObject({ source: file, workspace: 'tours', parentPath: '/', blobs: [] });
    expect(doc.roots).toHaveLength(1);
    const root = doc.roots[0];
    expect(root).toMatchObject({ name: 'magnolia-travels', type: 'cms:folder', id: '7dff43c1-da60-4e9e-b825-a49ef2d3277f', line: 2 });
    expect(root.children).toHaveLength(36);
    expect(prop(root, 'cms:activationStatus')).toEqual(['cms:activationStatus', 'Boolean', true]);
    expect(prop(root, 'cms:comment')).toEqual(['cms:comment', 'String', '']);
    expect(prop(root, 'cms:created')).toEqual(['cms:created', 'Date', '2015-01-29T07:58:07.713+00:00']);

    const tour = child(root, 'Vietnam--Tradition-and-Today');
    expect(tour).toMatchObject({ type: 'cms:content', id: '3d676477-eabc-4cbe-88b6-b77aa85a358a', line: 33 });
    const body = prop(tour, 'body')?.[2];
    expect(typeof body).toBe('string');
    expect(body).toMatch(/^<p>Vietnam is one of the world&rsquo;s most exotic/);
    expect(body).toContain('</p>\n<p>We won&rsquo;t');
    const destination = prop(tour, 'destination');
    expect(destination?.[1]).toBe('String');
    expect(Array.isArray(destination?.[2])).toBe(true);
    const longs = [...walk(doc.roots)].flatMap((n) => n.properties).filter((p) => p[1] === 'Long');
    expect(longs.length).toBeGreaterThan(0);
    expect(longs.every((p) => typeof p[2] === 'number')).toBe(true);
  });

  it('reads a jcr:root export as several roots under /', async () => {
    const file = join(FIXTURES, 'travel-spa', 'category.xml');
    const doc = await parseJcrXmlExport(file, { spoolDir });
    expect(doc.workspace).toBe('category');
    expect(doc.parentPath).toBe('/');
    expect(doc.roots.length).toBeGreaterThan(1);
    expect(doc.roots[0]).toMatchObject({ name: 'tour-types', type: 'cms:folder', id: 'bed25be3-378f-4f80-9140-a7302e045732' });
    expect(prop(doc.roots[0], 'cms:created')).toEqual(['cms:created', 'Date', '2015-01-27T14:26:54.468+00:00']);
    expect([...walk(doc.roots)].some((n) => n.type === 'rep:root' || n.name === 'jcr:root')).toBe(false);
  });
});

describe('parseJcrXmlExport binaries', () => {
  it('spools every binary of the svg icons with its size and sha256', async () => {
    const file = join(FIXTURES, 'travel-spa', 'dam.svg-icons.xml');
    const doc = await parseJcrXmlExport(file, { spoolDir });
    expect(doc).toMatchObject({ workspace: 'dam', parentPath: '/' });
    const expected = await expectedBinaries(file);
    expect(expected).toHaveLength(12);
    expect(doc.blobs.map(({ hash, size }) => ({ hash, size }))).toEqual(expected);
    for (const blob of doc.blobs) {
      expect(blob.file).toBe(join(spoolDir, blob.hash));
      expect((await stat(blob.file)).size).toBe(blob.size);
    }
    const resource = child(doc.roots[0], 'tour-types', 'offpath.svg', 'jcr:content');
    expect(resource.type).toBe('cms:resource');
    const data = prop(resource, 'jcr:data');
    expect(data).toEqual(['jcr:data', 'Binary', expected[0].hash]);
    expect(prop(resource, 'size')).toEqual(['size', 'Long', expected[0].size]);
    const folder = child(doc.roots[0], 'tour-types');
    expect(folder.mixins).toEqual(['mix:lockable']);
    expect((await readdir(spoolDir)).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('reads the one-line export and reports progress', async () => {
    const file = join(FIXTURES, 'nuxt3-startkit', 'dam.app.xml');
    const progress: number[] = [];
    const doc = await parseJcrXmlExport(file, { spoolDir, onProgress: (n) => progress.push(n) });
    expect(doc.roots.map((r) => r.name)).toEqual(['app']);
    expect(doc.roots[0].children.map((c) => c.type)).toEqual(['cms:asset', 'cms:asset']);
    expect(doc.blobs.map(({ hash, size }) => ({ hash, size }))).toEqual(await expectedBinaries(file));
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe((await stat(file)).size);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });

  // Reads the shared corpora directly (2.4 MB of base64): skipped only where ../shared/corpora is absent.
  it.skipIf(!CORPORA_AVAILABLE)('streams the largest asset of the corpus', async () => {
    const names = await readdir(CORPUS_ASSETS);
    const sizes = await Promise.all(names.map(async (n) => ({ n, size: (await stat(join(CORPUS_ASSETS, n))).size })));
    const largest = join(CORPUS_ASSETS, sizes.reduce((a, b) => (b.size > a.size ? b : a)).n);
    const doc = await parseJcrXmlExport(largest, { spoolDir });
    const expected = await expectedBinaries(largest);
    expect(expected).toHaveLength(1);
    expect(doc.blobs.map(({ hash, size }) => ({ hash, size }))).toEqual(expected);
    const resource = doc.roots[0].children.find((c) => c.name === 'jcr:content');
    expect(resource && prop(resource, 'jcr:data')).toEqual(['jcr:data', 'Binary', expected[0].hash]);
  });
});

describe('parseJcrXmlExport values', () => {
  it('converts values by sv:type and honours sv:multiple', async () => {
    const doc = await parseText('website.a.b.xml', `<?xml version="1.0" encoding="UTF-8"?>
<sv:node sv:name="b" ${SV}>
  <sv:property sv:name="jcr:primaryType" sv:type="Name"><sv:value>mgnl:page</sv:value></sv:property>
  <sv:property sv:name="jcr:mixinTypes" sv:type="Name" sv:multiple="true"><sv:value>mgnl:hasVersion</sv:value><sv:value>mix:lockable</sv:value></sv:property>
  <sv:property sv:name="n" sv:type="Long"><sv:value> 12 </sv:value></sv:property>
  <sv:property sv:name="d" sv:type="Double"><sv:value>1.5</sv:value></sv:property>
  <sv:property sv:name="flag" sv:type="Boolean"><sv:value>false</sv:value></sv:property>
  <sv:property sv:name="when" sv:type="Date"><sv:value>2020-02-01T13:45:49.952+07:00</sv:value></sv:property>
  <sv:property sv:name="kind" sv:type="Name"><sv:value>mgnl:area</sv:value></sv:property>
  <sv:property sv:name="one" sv:type="String" sv:multiple="true"><sv:value>x</sv:value></sv:property>
  <sv:property sv:name="none" sv:type="String" sv:multiple="true"></sv:property>
  <sv:property sv:name="text" sv:type="String"><sv:value>&lt;p&gt;a &amp;amp; b&lt;/p&gt; &#233;<![CDATA[<raw>&lt;]]></sv:value></sv:property>
  <sv:property sv:name="weak" sv:type="WeakReference"><sv:value>e254b7bc-bac6-4569-a287-f532a84e8bba</sv:value></sv:property>
  <!-- a comment -->
  <sv:node sv:name="c"><sv:property sv:name="x" sv:type="String"><sv:value/></sv:property></sv:node>
</sv:node>
`);
    expect(doc).toMatchObject({ workspace: 'website', parentPath: '/a' });
    const [root] = doc.roots;
    expect(root).toMatchObject({ name: 'b', type: 'cms:page', mixins: ['cms:hasVersion', 'mix:lockable'], line: 2 });
    expect(root.id).toBeUndefined();
    expect(root.properties).toEqual([
      ['n', 'Long', 12],
      ['d', 'Double', 1.5],
      ['flag', 'Boolean', false],
      ['when', 'Date', '2020-02-01T13:45:49.952+07:00'],
      ['kind', 'Name', 'mgnl:area'],
      ['one', 'String', ['x']],
      ['none', 'String', []],
      ['text', 'String', '<p>a &amp; b</p> é<raw>&lt;'],
      ['weak', 'WeakReference', 'e254b7bc-bac6-4569-a287-f532a84e8bba'],
    ]);
    expect(root.children).toEqual([{ name: 'c', mixins: [], properties: [['x', 'String', '']], children: [], line: 15 }]);
  });
});

describe('parseJcrXmlExport sv:type', () => {
  it('reads a type written with a character reference or in another case as the type itself', async () => {
    const doc = await parseText('website.a.xml', `<sv:node sv:name="a" ${SV}>
<sv:property sv:name="n1" sv:type="Long"><sv:value>1</sv:value></sv:property>
<sv:property sv:name="n2" sv:type="Lo&#110;g"><sv:value>2</sv:value></sv:property>
<sv:property sv:name="n3" sv:type="long"><sv:value>3</sv:value></sv:property>
<sv:property sv:name="n4" sv:type='Long'><sv:value>4</sv:value></sv:property>
<sv:property sv:name="s" sv:type="Longer"><sv:value>5</sv:value></sv:property>
</sv:node>`);
    expect(doc.roots[0]!.properties).toEqual([['n1', 'Long', 1], ['n2', 'Long', 2], ['n3', 'Long', 3], ['n4', 'Long', 4], ['s', 'String', '5']]);
  });
});

describe('parseJcrXmlExport errors', () => {
  const cases: Array<[string, string, number | undefined, RegExp]> = [
    ['unclosed element', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="x" sv:type="String">\n<sv:value>v</sv:value>\n</sv:node>`, 4, /<sv:property> is not closed/],
    ['truncated file', `<sv:node sv:name="a" ${SV}>\n<sv:node sv:name="b">\n`, undefined, /not closed/],
    ['stray closing tag', `<sv:node sv:name="a" ${SV}>\n</sv:value>\n</sv:node>`, 2, /closing tag without a matching opening tag/],
    ['unknown element', `<sv:node sv:name="a" ${SV}>\n  <foo/>\n</sv:node>`, 2, /unexpected element <foo>/],
    ['text outside a value', `<sv:node sv:name="a" ${SV}>\n  hello\n</sv:node>`, undefined, /unexpected text/],
    ['two roots', `<sv:node sv:name="a" ${SV}></sv:node>\n<sv:node sv:name="b"></sv:node>`, 2, /more than one root/],
    ['no root', '<?xml version="1.0"?>\n', undefined, /no sv:node/],
    ['node without name', `<sv:node ${SV}></sv:node>`, 1, /without sv:name/],
    ['bad Long', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="n" sv:type="Long">\n<sv:value>abc</sv:value></sv:property></sv:node>`, 2, /property n: not a Long/],
    ['bad base64', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="jcr:data" sv:type="Binary">\n<sv:value>ab*d</sv:value></sv:property></sv:node>`, 3, /invalid base64/],
    // The reader remembers property names it checked: one seen unchecked on the workspace root is still checked on a node.
    ['a reserved prefix in capitals, first on the workspace root', `<sv:node sv:name="jcr:root" ${SV}>\n<sv:property sv:name="JCR:note" sv:type="String"><sv:value>x</sv:value></sv:property>\n<sv:node sv:name="a">\n<sv:property sv:name="JCR:note" sv:type="String"><sv:value>y</sv:value></sv:property></sv:node></sv:node>`, 4, /prefix jcr: is reserved/],
    ['truncated base64', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="jcr:data" sv:type="Binary">\n<sv:value>abcde</sv:value></sv:property></sv:node>`, 2, /truncated/],
  ];
  for (const [title, text, line, reason] of cases) {
    it(`fails on ${title}`, async () => {
      const err = await parseText('website.bad.xml', text).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(ImportError);
      expect(err).toMatchObject({ file: join(spoolDir, 'website.bad.xml') });
      if (line !== undefined) expect((err as ImportError).line).toBe(line);
      expect((err as ImportError).reason).toMatch(reason);
      const leftovers = await readdir(join(spoolDir, 'blobs')).catch(() => []);
      expect(leftovers.filter((f) => f.startsWith('.'))).toEqual([]);
    });
  }

  it('fails on a missing file', async () => {
    await expect(parseJcrXmlExport(join(spoolDir, 'website.missing.xml'), { spoolDir })).rejects.toThrow(ImportError);
  });
});

describe('parseJcrXmlExport bounds (a hostile export)', () => {
  it('refuses a DOCTYPE with entity definitions ("billion laughs") before reading any node', async () => {
    const entities = ['<!ENTITY lol "lol">'];
    for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
    const text = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${entities.join('\n')}\n]>\n`
      + `<sv:node sv:name="a" ${SV}><sv:property sv:name="t" sv:type="String"><sv:value>&lol9;</sv:value></sv:property></sv:node>\n`;
    const err = await parseText('website.lolz.xml', text).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).line).toBe(2);
    expect((err as ImportError).reason).toMatch(/<!DOCTYPE> declaration \(DTDs and entities are not allowed/);
  });

  it('refuses an ENTITY declaration on its own', async () => {
    const err = await parseText('website.ent.xml', `<!ENTITY x SYSTEM "file:///etc/passwd">\n<sv:node sv:name="a" ${SV}></sv:node>`)
      .then(() => undefined, (e: unknown) => e);
    expect((err as ImportError).reason).toMatch(/<!ENTITY> declaration/);
  });

  it('refuses nodes nested more than 1000 deep', async () => {
    const text = `<sv:node sv:name="n" ${SV}>${'<sv:node sv:name="n">'.repeat(1000)}${'</sv:node>'.repeat(1001)}`;
    const err = await parseText('website.deep.xml', text).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).reason).toMatch(/nested more than 1000 deep/);
    const ok = `<sv:node sv:name="n" ${SV}>${'<sv:node sv:name="n">'.repeat(998)}${'</sv:node>'.repeat(999)}`;
    await expect(parseText('website.deep-ok.xml', ok)).resolves.toBeDefined();
  });

  it('refuses a value longer than 16M characters, read across chunks', async () => {
    const text = `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="t" sv:type="String"><sv:value>${'x'.repeat(16 * 1024 * 1024 + 1)}</sv:value></sv:property></sv:node>`;
    const err = await parseText('website.big.xml', text).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).reason).toMatch(/a value longer than 16777216 characters/);
  });
});

describe('a streamed XML export (openExport)', () => {
  /** Node `a` with `children` child nodes, then a property of `a` after them (outside the system view's order). */
  function lateProperty(children: number): string {
    const kids = Array.from({ length: children }, (_, i) => `<sv:node sv:name="c${i}"/>\n`).join('');
    return `<sv:node sv:name="a" ${SV}>\n${kids}<sv:property sv:name="late" sv:type="String"><sv:value>x</sv:value></sv:property>\n</sv:node>\n`;
  }

  async function streamed(text: string): Promise<NodeEntry[]> {
    const file = join(spoolDir, 'website.a.xml');
    await writeFile(file, text);
    const doc = await openExport(file, { spoolDir: join(spoolDir, 'blobs') });
    const out: NodeEntry[] = [];
    for await (const batch of doc.entries) out.push(...batch);
    return out;
  }

  it(`takes a property written after at most ${HELD_NODES} child nodes`, async () => {
    const entries = await streamed(lateProperty(HELD_NODES - 1));
    expect(entries).toHaveLength(HELD_NODES);
    expect(entries[0]!.draft.properties).toEqual([['late', 'String', 'x']]);
  });

  it(`refuses a property written after more than ${HELD_NODES} child nodes, naming file and line`, async () => {
    const err = await streamed(lateProperty(HELD_NODES)).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect(err).toMatchObject({ file: join(spoolDir, 'website.a.xml'), line: HELD_NODES + 2 });
    expect((err as ImportError).reason).toMatch(new RegExp(`property "late" of node "a" comes after more than ${HELD_NODES} nodes below it`));
  });
});

describe('decoding', () => {
  it('reads characters cut by the end of a 256 KiB read, with ASCII chunks around them', async () => {
    // The file is read in 256 KiB chunks: a padding value puts "é😀" across the first chunk's end, and
    // the chunks before and after it are ASCII only.
    const head = `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="pad" sv:type="String"><sv:value>`;
    const padding = 'p'.repeat(256 * 1024 - Buffer.byteLength(head) - 3);
    const tail = `</sv:value></sv:property>\n<sv:property sv:name="t" sv:type="String"><sv:value>${'q'.repeat(300 * 1024)}</sv:value></sv:property>\n</sv:node>\n`;
    const doc = await parseText('website.a.xml', `${head}${padding}é😀${tail}`);
    expect(prop(doc.roots[0]!, 'pad')![2]).toBe(`${padding}é😀`);
    expect((prop(doc.roots[0]!, 't')![2] as string).length).toBe(300 * 1024);
  });
});
