// The JCR XML reader (a specialised scanner) against the htmlparser2-based reader it replaced, kept as
// the oracle in fixtures/: the same text, fed whole and in tiny chunks, gives both the same trees (lines
// included), binaries and workspace flag, or the same ImportError (reason and line).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { JcrXmlExportReader } from '../../src/ingest/import-jcr-xml.js';
import { DraftTree } from '../../src/ingest/draft-sink.js';
import { ImportError } from '../../src/ingest/import-error.js';
import { MAX_IMPORT_VALUE_CHARS } from '../../src/ingest/import-limits.js';
import type { NodeDraft } from '../../src/repository/import-document.js';
import { JcrXmlExportReader as Htmlparser2Reader } from './fixtures/htmlparser2-jcr-xml-reader.js';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { writeProductsXml } from '../helpers/product-exports.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const SV = 'xmlns:sv="http://www.jcp.org/jcr/sv/1.0"';
/** Whole text, then the tiny chunks that cut every construct somewhere. */
const CHUNKS = [Infinity, 1, 7, 64] as const;
/** Tiny chunks of the large (binary) corpus files would take minutes: those get a larger size instead. */
const MAX_WRITES = 5_000;
const LARGE_CHUNK = 4_093;

type ReaderClass = new (file: string, spoolDir: string, sink: DraftTree) => {
  write(chunk: string): void;
  end(): void;
  settled(): Promise<void>;
  abort(): Promise<void>;
  blobs(): Array<{ hash: string; size: number }>;
  readonly rootKnown: boolean;
  readonly isWorkspaceExport: boolean;
};

type Outcome =
  | { roots: NodeDraft[]; blobs: Array<{ hash: string; size: number }>; workspace: boolean }
  | { error: { reason: string; line: number | undefined } };

let scratch: string;
let spools = 0;
beforeAll(async () => { scratch = await mkdtemp(join(tmpdir(), 'petal-xml-eq-')); });
afterAll(async () => { await rm(scratch, { recursive: true, force: true }); });

async function readWith(Reader: ReaderClass, text: string, chunk: number): Promise<Outcome> {
  const tree = new DraftTree('export.xml');
  const spoolDir = join(scratch, `spool-${spools++}`);
  const reader = new Reader('export.xml', spoolDir, tree);
  try {
    for (let at = 0; at < text.length; at += chunk) reader.write(text.slice(at, at + chunk));
    reader.end();
    expect(reader.rootKnown).toBe(true);
    await reader.settled();
    const blobs = reader.blobs().map(({ hash, size }) => ({ hash, size }));
    return { roots: tree.roots, blobs, workspace: reader.isWorkspaceExport };
  } catch (err) {
    await reader.abort();
    if (!(err instanceof ImportError)) throw err;
    expect(err.file).toBe('export.xml');
    return { error: { reason: err.reason, line: err.line } };
  } finally {
    await rm(spoolDir, { recursive: true, force: true });
  }
}

function chunkSizes(text: string): number[] {
  const sizes: number[] = CHUNKS.filter((chunk) => text.length / chunk <= MAX_WRITES);
  if (sizes.length < 3) sizes.push(LARGE_CHUNK);
  return sizes;
}

/**
 * Both readers, at every chunk size the text allows; returns the whole-text outcome. With
 * `staleSlice`, a chunked read may differ from htmlparser2's where htmlparser2 disagrees with itself
 * (its whole-text answer): a file ending inside a closing tag after its name, or after a start tag's
 * `/`, makes it read text from a stale buffer position, which depends on how the text was cut.
 */
async function expectSame(text: string, { staleSlice = false } = {}): Promise<Outcome> {
  let whole: Outcome | undefined;
  let htmlparser2Whole: Outcome | undefined;
  for (const chunk of chunkSizes(text)) {
    const expected = await readWith(Htmlparser2Reader, text, chunk);
    const actual = await readWith(JcrXmlExportReader, text, chunk);
    htmlparser2Whole ??= expected;
    whole ??= actual;
    if (staleSlice && !isDeepStrictEqual(actual, expected)) {
      expect(expected, `htmlparser2 in chunks of ${chunk} agrees with itself`).not.toEqual(htmlparser2Whole);
      expect(actual, `chunks of ${chunk}`).toEqual(htmlparser2Whole);
    } else {
      expect(actual, `chunks of ${chunk}`).toEqual(expected);
    }
  }
  return whole!;
}

async function expectSameTree(text: string): Promise<NodeDraft[]> {
  const outcome = await expectSame(text);
  if ('error' in outcome) throw new Error(`expected a tree, got ${outcome.error.reason} at line ${outcome.error.line}`);
  return outcome.roots;
}

async function expectSameError(text: string): Promise<{ reason: string; line: number | undefined }> {
  const outcome = await expectSame(text);
  if (!('error' in outcome)) throw new Error('expected an ImportError');
  return outcome.error;
}

async function xmlFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.xml')).map((e) => join(e.parentPath, e.name)).sort();
}

const node = (name: string, body: string, attrs = ''): string => `<sv:node sv:name="${name}"${attrs}>${body}</sv:node>`;
const prop = (name: string, type: string, ...values: string[]): string =>
  `<sv:property sv:name="${name}" sv:type="${type}">${values.map((v) => `<sv:value>${v}</sv:value>`).join('')}</sv:property>`;

describe('the scanner reads real exports as htmlparser2 did', () => {
  it('the repository\'s test fixtures', async () => {
    const files = await xmlFilesUnder(FIXTURES);
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const file of files) {
      const roots = await expectSameTree(await readFile(file, 'utf8'));
      expect(roots.length, file).toBeGreaterThan(0);
    }
  });

  // Skipped when the shared corpora are not beside the checkout (a fresh clone elsewhere); they are in CI.
  it.skipIf(!CORPORA_AVAILABLE)('every .xml export of the shared corpora', async () => {
    const files = await xmlFilesUnder(CORPORA);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) await expectSame(await readFile(file, 'utf8'));
  });

  it('a generated product export', async () => {
    const file = join(scratch, 'products.xml');
    await writeProductsXml(file, { nodes: 2_500 });
    const roots = await expectSameTree(await readFile(file, 'utf8'));
    expect(roots[0]!.children).toHaveLength(3);
  });
});

describe('the XML syntax an export may use', () => {
  const cases: Array<[string, string]> = [
    ['an XML declaration, comments and processing instructions', `<?xml version="1.0" encoding="UTF-8"?>\n<!-- head -->\n<?pi data?>\n${node('a', `<!-- c1 -- c2 --><!---->${prop('t', 'String', 'x<!-- inside -->y<?pi?>z')}<!-- --!>`, ` ${SV}`)}\n<!-- tail -->\n`],
    ['entities in text and attributes', node('a&amp;b', prop('t&#58;x', 'String', '&lt;p&gt; &amp;amp; &quot;&apos; &#233;&#xE9;&#X1F600; &#0; &#xD800; &#1114112; &amp &unknown; & &#; &#x; &#12a;'), ` ${SV}`)],
    ['CDATA sections', node('a', prop('t', 'String', 'a<![CDATA[<b>&amp;</b> ]] ]]]>c', '<![CDATA[]]>'), ` ${SV}`)],
    ['attributes in any order, single or double quoted, spaced, unquoted, repeated', `<sv:node ${SV}\n  sv:name='a' sv:name="ignored" x:y="1"><sv:property sv:type = "Long"\tsv:name = 'n'><sv:value>1</sv:value></sv:property><sv:property sv:name=m sv:type=String sv:multiple=true><sv:value>x</sv:value></sv:property></sv:node>`],
    ['self-closing values, properties and nodes', node('a', `${prop('e', 'String')}<sv:property sv:name="v" sv:type="String"><sv:value/><sv:value /></sv:property><sv:property sv:name="w" sv:type="Long" sv:multiple="true"/><sv:node sv:name="leaf"/><sv:node sv:name="leaf2" / >`, ` ${SV}`)],
    ['multi-value rules', node('a', prop('one', 'String', 'x') + prop('two', 'String', 'x', 'y') + prop('none', 'String') + '<sv:property sv:name="m" sv:type="String" sv:multiple="true"><sv:value>x</sv:value></sv:property>' + '<sv:property sv:name="f" sv:type="String" sv:multiple="false"><sv:value>x</sv:value></sv:property>', ` ${SV}`)],
    ['every property type', node('a', prop('jcr:primaryType', 'Name', 'mgnl:page') + prop('jcr:mixinTypes', 'Name', 'mix:a', 'mix:b') + prop('jcr:uuid', 'String', 'e254b7bc-bac6-4569-a287-f532a84e8bba') + prop('l', 'Long', ' 12 ') + prop('d', 'Double', '1.5') + prop('b', 'Boolean', 'false') + prop('t', 'Date', '2020-02-01T13:45:49.952+07:00') + prop('r', 'WeakReference', 'e254b7bc-bac6-4569-a287-f532a84e8bba') + prop('u', 'Unknown', 'x'), ` ${SV}`)],
    ['CRLF line ends', `<?xml version="1.0"?>\r\n${node('a', `\r\n  ${prop('t', 'String', 'a\r\nb')}\r\n  ${node('b', '\r\n')}\r\n`, ` ${SV}`)}\r\n`],
    ['a byte-order mark', `\ufeff<?xml version="1.0"?>\n${node('a', prop('t', 'String', '\ufeffx'), ` ${SV}`)}\n`],
    ['binaries, with line breaks and a character reference in the base64', node('a', node('f', prop('jcr:data', 'Binary', 'aGVs\nbG8g&#100;29y\r\n bGQ=') + prop('empty', 'Binary', '') + prop('unpadded', 'Binary', 'YWJjZA')), ` ${SV}`)],
    ['a workspace export', node('jcr:root', prop('jcr:primaryType', 'Name', 'rep:root') + prop('jcr:mixinTypes', 'Name', 'rep:AccessControllable') + prop('rep:weird[name]', 'String', 'x') + node('a', prop('t', 'String', 'x')) + '\n' + node('b', node('c', '')), ` ${SV}`)],
    ['a jcr:root below the root', node('a', node('jcr:root', prop('t', 'String', 'x')), ` ${SV}`)],
    ['deep nesting', `<sv:node sv:name="n" ${SV}>${'<sv:node sv:name="n">\n'.repeat(998)}${'</sv:node>'.repeat(999)}`],
    ['markup characters htmlparser2 reads as text', node('a', prop('t', 'String', 'a < b <> c </> </ > > d'), ` ${SV}`)],
    ['a closing tag with spaces or junk before its >', `<sv:node sv:name="a" ${SV}><sv:property sv:name="t" sv:type="String"><sv:value>x</sv:value \n><sv:value>y</sv:value/></sv:property junk></ sv:node >`],
    ['a bogus comment <//…>', node('a', `<//ignored>${prop('t', 'String', 'x<//y>z')}`, ` ${SV}`)],
    ['long CDATA sections, comments and entity runs across chunks', node('a', `<!--${'-'.repeat(3)}${'c -'.repeat(4000)}-->${prop('t', 'String', `<![CDATA[${'x<y&amp;]]'.repeat(6000)}]]>${'&lt;b&gt;&#233;'.repeat(3000)}`)}`, ` ${SV}`)],
    ['whitespace characters around elements', `\t\r\n ${node('a', `\n\u00a0\u2028\t${prop('t', 'String', ' ')}&#32;&#160;`, ` ${SV}`)}\n\n`],
  ];
  for (const [title, text] of cases) {
    it(`reads ${title} into the same tree`, async () => {
      const roots = await expectSameTree(text);
      expect(roots.length).toBeGreaterThan(0);
    });
  }

  it('reads a value of exactly the longest length, cut by chunks', async () => {
    const text = node('a', prop('t', 'String', 'x'.repeat(MAX_IMPORT_VALUE_CHARS - 10) + '&amp;'.repeat(10)), ` ${SV}`);
    const whole = await readWith(JcrXmlExportReader, text, Infinity);
    expect(whole).toEqual(await readWith(Htmlparser2Reader, text, Infinity));
    expect(await readWith(JcrXmlExportReader, text, 65_536)).toEqual(whole);
    expect(await readWith(JcrXmlExportReader, text, 65_535)).toEqual(await readWith(Htmlparser2Reader, text, 65_535));
  });
});

describe('a broken export fails with the same error', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['an unexpected element', node('a', '\n  <foo/>\n', ` ${SV}`), /unexpected element <foo>/],
    ['an unexpected element with attributes, across lines', node('a', '\n  <sv:nodes\n sv:name="b"></sv:nodes>', ` ${SV}`), /unexpected element <sv:nodes>/],
    ['sv:property outside sv:node', `<sv:property sv:name="p" sv:type="String" ${SV}/>`, /sv:property outside sv:node/],
    ['sv:value outside sv:property', node('a', '\n<sv:value>x</sv:value>', ` ${SV}`), /sv:value outside sv:property/],
    ['sv:node inside sv:property', node('a', '<sv:property sv:name="p" sv:type="String">\n<sv:node sv:name="b"/></sv:property>', ` ${SV}`), /sv:node inside sv:property/],
    ['sv:node inside sv:value', node('a', '<sv:property sv:name="p" sv:type="String"><sv:value>\n<sv:node sv:name="b"/></sv:value></sv:property>', ` ${SV}`), /sv:node inside sv:value/],
    ['text outside sv:value', node('a', '\n  hello\n', ` ${SV}`), /unexpected text outside sv:value/],
    ['text in a property', node('a', '<sv:property sv:name="p" sv:type="String">\n x <sv:value>v</sv:value></sv:property>', ` ${SV}`), /unexpected text/],
    ['an entity outside sv:value', node('a', '\n&amp;\n', ` ${SV}`), /unexpected text/],
    ['CDATA outside sv:value', node('a', '\n<![CDATA[x]]>\n', ` ${SV}`), /unexpected text/],
    ['text after the root', `${node('a', '', ` ${SV}`)}\ntrailing`, /unexpected text/],
    ['a node without sv:name', `<sv:node ${SV}></sv:node>`, /<sv:node> without sv:name/],
    ['a node with an empty sv:name', `<sv:node sv:name="" ${SV}></sv:node>`, /without sv:name/],
    ['a node with a valueless sv:name', `<sv:node sv:name ${SV}></sv:node>`, /without sv:name/],
    ['a property without sv:name', node('a', '\n<sv:property sv:type="String"/>', ` ${SV}`), /<sv:property> without sv:name/],
    ['a property without sv:type', node('a', '\n<sv:property sv:name="p"/>', ` ${SV}`), /<sv:property> without sv:type/],
    ['an invalid node name', node('a', '\n<sv:node sv:name="x/y"/>', ` ${SV}`), /invalid node name/],
    ['an invalid property name', node('a', '\n<sv:property sv:name="p*" sv:type="String"/>', ` ${SV}`), /invalid property name/],
    ['an unclosed property', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="x" sv:type="String">\n<sv:value>v</sv:value>\n</sv:node>`, /<sv:property> is not closed/],
    ['an unclosed value', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="x" sv:type="String">\n<sv:value>v</sv:property>\n</sv:node>`, /<sv:value> is not closed/],
    ['a truncated file', `<sv:node sv:name="a" ${SV}>\n<sv:node sv:name="b">\n`, /<sv:node> is not closed/],
    ['a stray closing tag', `<sv:node sv:name="a" ${SV}>\n</sv:value>\n</sv:node>`, /closing tag without a matching opening tag/],
    ['a stray closing tag with a line break in it', `<sv:node sv:name="a" ${SV}>\n</sv:val\n>\n</sv:node>`, /closing tag without a matching opening tag/],
    ['a closing tag after the root', `${node('a', '', ` ${SV}`)}\n</sv:node>`, /closing tag without a matching opening tag/],
    ['two roots', `${node('a', '', ` ${SV}`)}\n${node('b', '')}`, /more than one root/],
    ['no root', '<?xml version="1.0"?>\n<!-- nothing -->\n', /no sv:node/],
    ['an empty file', '', /no sv:node/],
    ['a DOCTYPE', `<?xml version="1.0"?>\n<!DOCTYPE x [\n<!ENTITY e "v">\n]>\n${node('a', '', ` ${SV}`)}`, /<!DOCTYPE> declaration/],
    ['an ENTITY', `<!ENTITY x SYSTEM "file:///etc/passwd">\n${node('a', '', ` ${SV}`)}`, /<!ENTITY> declaration/],
    ['a lower-case doctype', `<!doctype/x>\n${node('a', '', ` ${SV}`)}`, /<!DOCTYPE> declaration/],
    ['a declaration inside a value', node('a', prop('t', 'String', 'x<!ELEMENT y>'), ` ${SV}`), /<!ELEMENT> declaration/],
    ['a misspelt CDATA', node('a', prop('t', 'String', '<![cdata[x]]>'), ` ${SV}`), /declaration/],
    ['nodes nested more than the limit', `<sv:node sv:name="n" ${SV}>${'<sv:node sv:name="n">\n'.repeat(1000)}${'</sv:node>'.repeat(1001)}`, /nested more than 1000 deep/],
    ['a bad Long', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="n" sv:type="Long">\n<sv:value>abc</sv:value></sv:property></sv:node>`, /property n: not a Long/],
    ['a bad base64 character', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="jcr:data" sv:type="Binary">\n<sv:value>YWJj\nZA*d</sv:value></sv:property></sv:node>`, /invalid base64/],
    ['truncated base64', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="jcr:data" sv:type="Binary">\n<sv:value>abcde</sv:value></sv:property></sv:node>`, /truncated/],
    ['base64 after its padding', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="jcr:data" sv:type="Binary">\n<sv:value>YWI=\nYWJj</sv:value></sv:property></sv:node>`, /padding/],
    ['an unterminated comment', `<sv:node sv:name="a" ${SV}>\n<!-- never closed\n\n`, /<sv:node> is not closed/],
    ['an unterminated CDATA section', `<sv:node sv:name="a" ${SV}><sv:property sv:name="t" sv:type="String"><sv:value><![CDATA[never\nclosed`, /not closed/],
    ['an unterminated start tag', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="t"\n sv:type="String"`, /<sv:property> is not closed/],
    ['an unterminated attribute value', `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="t>\n`, /<sv:property> is not closed/],
    ['an unterminated tag name after the root', `${node('a', '', ` ${SV}`)}\n<sv:node sv:name="b" `, /<sv:node> is not closed/],
    ['an unterminated processing instruction', `${node('a', '', ` ${SV}`)}\n<?pi never`, /unexpected text/],
    ['an unterminated entity after the root', `${node('a', '', ` ${SV}`)}\n&am`, /unexpected text/],
  ];
  for (const [title, text, reason] of cases) {
    it(`fails on ${title}`, async () => {
      const error = await expectSameError(text);
      expect(error.reason).toMatch(reason);
    });
  }

  it('fails on a value longer than the limit, read across chunks', async () => {
    const text = `<sv:node sv:name="a" ${SV}>\n<sv:property sv:name="t" sv:type="String"><sv:value>\n${'x'.repeat(MAX_IMPORT_VALUE_CHARS)}</sv:value></sv:property></sv:node>`;
    for (const chunk of [Infinity, 65_536, 100_003]) {
      const expected = await readWith(Htmlparser2Reader, text, chunk);
      expect(expected).toMatchObject({ error: { reason: /a value longer than 16777216 characters/ } });
      expect(await readWith(JcrXmlExportReader, text, chunk)).toEqual(expected);
    }
  });
});

describe('damaged files: the same outcome at every cut and for small edits', () => {
  const sample = `\ufeff<?xml version="1.0" encoding="UTF-8"?>\r\n<!-- c -- x --><sv:node sv:name="a" ${SV}>\r\n`
    + `  <sv:property sv:type='String' sv:name='t'><sv:value>&lt;p&gt;a &amp;amp; b&#233;<![CDATA[<raw>]]> x</sv:value></sv:property>\n`
    + `<sv:property sv:name="m" sv:type="Long" sv:multiple="true"><sv:value>1</sv:value><sv:value> 2 </sv:value ></sv:property\n>`
    + `<sv:property sv:name="e" sv:type="String"><sv:value/></sv:property>\n<sv:property sv:name="jcr:data" sv:type="Binary"><sv:value>aGVs\nbG8=</sv:value></sv:property>`
    + `<sv:node sv:name="b" x=1><sv:property sv:name="n" sv:type="Name"><sv:value>mgnl:page</sv:value></sv:property></sv:node><?pi x?>\n<sv:node\n sv:name="c&amp;d"/></sv:node>\n`;

  it('the sample reads', async () => {
    expect(await expectSameTree(sample)).toHaveLength(1);
  });

  it('every prefix of the sample (a file cut anywhere)', async () => {
    for (let end = 0; end < sample.length; end++) await expectSame(sample.slice(0, end), { staleSlice: true });
  });

  it('a file ending inside a closing tag reads as htmlparser2 read it whole, however it is cut', async () => {
    const root = `<sv:node sv:name="a" ${SV}><sv:property sv:name="p" sv:type="String"><sv:value>x</sv:value>`;
    for (const [text, reason] of [
      [`${root}</sv:property></sv:node `, undefined],
      [`${root}</sv:property></sv:node x`, 'unexpected text outside sv:value'],
      [`${root}</sv:property\n`, '<sv:node> is not closed'],
      [`${root}</sv:property><sv:property sv:name="q" sv:type="String"/`, 'unexpected text outside sv:value'],
      [`${root}</sv:property><sv:property sv:name="q" sv:type="String"/ `, '<sv:property> is not closed'],
    ] as const) {
      const outcome = await expectSame(text, { staleSlice: true });
      expect('error' in outcome ? outcome.error.reason : undefined).toBe(reason);
    }
  });

  it('deterministic edits of the sample: characters dropped, markup inserted', async () => {
    const inserts = ['<', '>', '/', '&', ';', '"', "'", '=', ' ', '\n', '!', '?', '-', ']', '#', '</sv:value>', '<sv:value>', '&amp;', '<!--', '-->', '<![CDATA[', ']]>', '</sv:node>'];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      let text = sample;
      for (let edit = 0; edit <= round % 3; edit++) {
        const at = random(text.length);
        text = random(5) < 2 ? text.slice(0, at) + text.slice(at + 1 + random(3)) : text.slice(0, at) + inserts[random(inserts.length)] + text.slice(at);
      }
      await expectSame(text);
    }
  });
});
