// The streamed YAML reader gives exactly the nodes (names, types, mixins, ids, properties in order with
// their types and values, lines) and the errors (reason and line) of the whole-document reader it
// replaced (kept as the oracle in fixtures/whole-yaml-export.ts): on the corpora, the repository's YAML
// exports, generated products exports and tricky shapes, fed whole and in tiny chunks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseYamlExport } from '../../src/ingest/import-yaml.js';
import { YamlExportReader } from '../../src/ingest/yaml-export-reader.js';
import { DraftTree } from '../../src/ingest/draft-sink.js';
import { ImportError } from '../../src/ingest/import-error.js';
import type { NodeDraft } from '../../src/repository/import-document.js';
import { parseYamlExport as parseWhole } from './fixtures/whole-yaml-export.js';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { productExportText } from '../helpers/yaml-export-generator.js';

const REPO = join(import.meta.dirname, '..', '..');

type Outcome =
  | { roots: readonly NodeDraft[]; blobs: { hash: string; size: number }[] }
  | { error: { name: string; reason: string; line: number | undefined } };

let dir: string;
let runs = 0;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-yaml-eq-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

// A nesting past MAX_IMPORT_DEPTH is refused by the reader's own count or, first, by the yaml package
// running out of stack: which one comes first depends on the stack left to the thread (Node version,
// the test runner's frames), not on the reader, so both count as the same refusal.
const TOO_DEEP = /^nodes nested (too deep to read \(.*\)|more than \d+ deep)$/;

function failure(err: unknown): Outcome {
  if (!(err instanceof ImportError)) throw err;
  const reason = TOO_DEEP.test(err.reason) ? 'nodes nested too deep' : err.reason;
  return { error: { name: err.name, reason, line: err.line } };
}

function blobsOf(blobs: readonly { hash: string; size: number }[]) {
  return blobs.map(({ hash, size }) => ({ hash, size }));
}

async function fileOf(text: string): Promise<string> {
  const file = join(dir, `website.case${++runs}.yaml`);
  await writeFile(file, text);
  return file;
}

async function oracle(file: string): Promise<Outcome> {
  try {
    const doc = await parseWhole(file, { spoolDir: join(dir, `spool-${++runs}`) });
    return { roots: doc.roots, blobs: blobsOf(doc.blobs) };
  } catch (err) {
    return failure(err);
  }
}

async function streamedFile(file: string): Promise<Outcome> {
  try {
    const doc = await parseYamlExport(file, { spoolDir: join(dir, `spool-${++runs}`) });
    return { roots: doc.roots, blobs: blobsOf(doc.blobs) };
  } catch (err) {
    return failure(err);
  }
}

/** The reader fed `chunk` characters at a time, as the import driver feeds it. */
async function streamedChunks(file: string, text: string, chunk: number): Promise<Outcome> {
  const tree = new DraftTree(file);
  const reader = new YamlExportReader(file, join(dir, `spool-${++runs}`), tree);
  try {
    for (let at = 0; at < text.length; at += chunk) {
      reader.write(text.slice(at, at + chunk));
      await reader.settled();
    }
    reader.end();
    await reader.settled();
    return { roots: tree.roots, blobs: blobsOf(reader.blobs()) };
  } catch (err) {
    await reader.abort();
    return failure(err);
  }
}

async function expectSame(text: string, chunks: readonly number[] = [1, 7, 64]): Promise<Outcome> {
  const file = await fileOf(text);
  const expected = await oracle(file);
  expect(await streamedFile(file)).toEqual(expected);
  for (const chunk of chunks) expect(await streamedChunks(file, text, chunk), `chunks of ${chunk}`).toEqual(expected);
  return expected;
}

async function yamlFilesUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.yaml')) found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

// Skipped when the shared corpora are not beside the checkout (a fresh clone elsewhere); they are in CI.
describe.skipIf(!CORPORA_AVAILABLE)('every YAML file of the corpora', () => {
  it('reads to the same nodes or the same error, whole and in chunks', async () => {
    const files = await yamlFilesUnder(CORPORA);
    expect(files.length).toBeGreaterThan(100);
    let nodes = 0;
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      const expected = await oracle(await fileOf(text));
      const copy = await fileOf(text);
      expect(await streamedFile(copy), relative(CORPORA, file)).toEqual(expected);
      for (const chunk of [1, 7, 64]) {
        expect(await streamedChunks(copy, text, chunk), `${relative(CORPORA, file)} in chunks of ${chunk}`).toEqual(expected);
      }
      if ('roots' in expected) nodes++;
    }
    // The corpora hold exports and other YAML (definitions, configs): both kinds must be there.
    expect(nodes).toBeGreaterThan(10);
    expect(nodes).toBeLessThan(files.length);
  }, 300_000);
});

describe('the repository\'s YAML exports', () => {
  it('read to the same nodes, whole and in chunks', async () => {
    const files = [...await yamlFilesUnder(join(REPO, 'test', 'fixtures')), ...await yamlFilesUnder(join(REPO, 'demo')).catch(() => [])];
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      const expected = await oracle(await fileOf(text));
      const copy = await fileOf(text);
      expect(await streamedFile(copy), relative(REPO, file)).toEqual(expected);
      for (const chunk of [1, 7, 64]) {
        expect(await streamedChunks(copy, text, chunk), `${relative(REPO, file)} in chunks of ${chunk}`).toEqual(expected);
      }
    }
  }, 300_000);
});

describe('generated products exports', () => {
  it('2,500 products in folders of 1,000', async () => {
    const expected = await expectSame(productExportText(2500), [4096]);
    expect('roots' in expected && expected.roots[0]!.children.map((c) => c.children.length)).toEqual([1000, 1000, 500]);
  }, 120_000);

  it('300 products in tiny chunks, with CRLF line ends and a byte-order mark', async () => {
    const text = productExportText(300, 100);
    await expectSame(text);
    await expectSame(text.replaceAll('\n', '\r\n'), [7]);
    await expectSame(`\ufeff${text}`, [7]);
  }, 120_000);
});

/** Shapes a hand-written or foreign export may take, each read the same way as by the whole-document reader. */
const TRICKY: Record<string, string> = {
  // Block sequences of one-line scalars are read by the line reader; the rest of each shape goes to `yaml`.
  seqAtKeyIndent: "'r':\n  'a':\n  - x\n  - 'y'\n  'b': 1\n",
  seqTyped: "'r':\n  'a':\n    - 1\n    - 2.5\n    - true\n  'd':\n    - 2024-01-02T03:04:05.000Z\n  't':\n    - !long 4\n    - !long 5\n",
  seqMixedTypes: "'r':\n  'a':\n    - 1\n    - abc\n",
  seqExplicitDisagree: "'r':\n  'a':\n    - !long 1\n    - !double 2\n",
  seqNullEntry: "'r':\n  'a':\n    - x\n    -\n    - y\n",
  seqTildeEntry: "'r':\n  'a':\n    - x\n    - ~\n",
  seqNestedEntry: "'r':\n  'a':\n    - x\n    - - y\n",
  seqMapEntry: "'r':\n  'a':\n    - x\n    - k: v\n",
  seqContinuedScalar: "'r':\n  'a':\n    - one\n      two\n    - three\n",
  seqIndentChange: "'r':\n  'a':\n    - x\n   - y\n",
  seqDeeperThenLevel: "'r':\n  'a':\n    - x\n  - y\n",
  seqWithComments: "'r':\n  'a': # tags\n    - x # first\n    # between\n    - y\n  'b': 2\n",
  seqFlowEntry: "'r':\n  'a':\n    - [1, 2]\n",
  seqLastLineNoNewline: "'r':\n  'a':\n    - x\n    - y",
  seqAtRoot: "'r':\n  - x\n",
  seqBadName: "'r':\n  'p[1]':\n    - x\n",
  seqQuotedMultiLine: "'r':\n  'a':\n    - 'one\n      two'\n",
  blockScalars: [
    "'r':", "  'lit': |", '    line one', '', '    line three', "  'fold': >", '    folded', '    text', '', '    para',
    "  'strip': |-", '    no newline', "  'keep': |+", '    kept', '', '', "  'indented': |2", '      two extra',
    "  'tagged': !!str |", '    tagged text', "  'after': 1", '',
  ].join('\n'),
  blockScalarAtEofWithoutNewline: "'r':\n  'a': |\n    text",
  quotedKeys: [
    "'r':", "  'it''s': 1", '  "double": 2', '  "esc\\"aped": 3', '  "hex\\x41": 4', '  plain key: 5', '  key with spaces  : 6',
    "  'jcr:title': 'x'", '  mgnl:template: app:pages/x', '',
  ].join('\n'),
  flowSequences: [
    "'r':", "  'a': [a, 'b', \"c\", !long 1]", "  'b': [ ]", "  'c': ['x',", "    'y']", "  'd': [2021-10-14T10:48:15Z, 3]",
    "  'e': !weakreference ['u1', 'u2']", "  'f': [1, 2.5]", "  'g': ['a' , 'b' ] # c", "  'h': [a:b]", '',
  ].join('\n'),
  blockSequences: ["'r':", "  'a':", "  - 'x'", "  - 'y'", "  'b':", '    - 1', '    - 2', "  'c': 3", ''].join('\n'),
  anchorsAndAliases: [
    "'r':", "  'a': &node", "    'jcr:primaryType': 'mgnl:component'", "    't': &text 'hello'", "  'b': *node",
    "  'c': *text", "  'd': [*text, 'x']", "  'e':", "    'deep': *node", "  'f': &node 'again'", "  'g': *node", '',
  ].join('\n'),
  unresolvedAlias: "'r':\n  'a': *nowhere\n",
  tags: [
    "'r':", "  's': !!str 12", "  'i': !!int '12'", "  'f': !!float '1.5'", "  'b': !!bool 'true'", "  't': !!timestamp 2021-10-14",
    "  'n': !!null ''", "  'l': !Long '7'", "  'w': !weakreference 'u'", "  'W': !WeakReference 'u'", "  'd': !decimal '1.50'",
    "  'u': !uri 'https://x'", "  'bin': !binary 'aGVsbG8='", "  'cbin': !!binary |", '    aGVs', '    bG8=', "  'name': !name 'mgnl:page'", '',
  ].join('\n'),
  comments: [
    '# leading comment', '', "'r': # after root", "  # inside", "  'a': 1 # trailing", '# at column 0', "  'b': 'x # not a comment'",
    "  'c': x#y", "    # deeper comment", "  'n':", "    # only a comment", "    'm': 2", '', '# last', '',
  ].join('\n'),
  multiLinePlain: "'r':\n  'a': first\n    second\n     third\n  'b': 1\n",
  multiLineQuoted: [
    "'r':", "  'a': '<p>one", '    two', '', '      three  ', '', '', "    it''s'", "  'b': 'x", "    '", "  'c': '", "    y'",
    "  'd': 'end''", "    ''s'", "  'e': 'trailing # not comment", "    done' # comment", '',
  ].join('\n'),
  doubleQuoted: "'r':\n  'a': \"tab\\there\"\n  'b': \"u\\u00e9\"\n  'c': \"x\\ny\"\n  'd': \"multi\n    line\"\n  'e': \"\\e\"\n",
  emptyNodesAndNulls: [
    "'r':", "  'empty': {}", "  'nul':", "  'tilde': ~", "  'word': null", "  'Null': Null", "  'quotedNull': 'null'",
    "  'child':", "    'x': 1", "  'emptyFlow': { }", '',
  ].join('\n'),
  emptyRoot: "'r':\n",
  emptyRootFlow: "'r': {}\n",
  nullRoot: "'r': ~\n",
  propertyAfterChild: "'r':\n  'a':\n    'b':\n      'c': 1\n    'p': 2\n  'q': 3\n",
  documentMarkers: "---\n'r':\n  'a': 1\n...\n# after\n",
  directive: "%YAML 1.2\n---\n'r':\n  'a': 1\n",
  flowDocument: "{'r': {'a': 1, 'b': [1, 2], 'c': {'d': 'x'}}}\n",
  noFinalNewline: "'r':\n  'a': 1\n  'b': 'x'",
  scalars: [
    "'r':", "  'neg': -7", "  'dot': .5", "  'exp': 1e3", "  'hex': 0x1F", "  'plus': +1", "  'bool': True", "  'date': 2021-10-14",
    "  'dateTime': 2021-10-14 10:48:15", "  'url': http://example.com/a?b=c", "  'dash': -foo", "  'long': 12345678901234567890",
    "  'spaces': a  b", "  'unicode': 'héllo 😀 wörld'", "  'brackets': a [b] {c}", '',
  ].join('\n'),
  deepBlock: Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i)}'n${i}':`).join('\n') + `\n${'  '.repeat(60)}'x': 1\n`,
  tabsInValues: "'r':\n  'a': 'x\ty'\n  'b': a\tb\n  'c': 'multi\n   \tline'\n",
  multiValueTypes: "'r':\n  'mixed': [1, 'a', true]\n  'longs': [1, 2]\n  'dates': [2021-10-14, 2021-10-15]\n",
  rootNotFirstColumn: "  'r':\n    'a': 1\n",
  explicitKey: "'r':\n  ? 'a'\n  : 1\n  'b': 2\n",
  anchoredFolder: "'r':\n  'f': &f\n    'p1':\n      'x': 1\n    'p2':\n      'y': 2\n  'g': *f\n",
  // The reader refills one record per kind of item: blank lines, continuations and a shorter sequence
  // after a longer one must not see an earlier item's lines or entries.
  reusedRecords: [
    "'r':", "  'a': first", '', '    second', "  'b':", '', "    'c': 1", "  's':", '    - x', '    - y', '    - z',
    "  't':", '    - u', '', '    - v', '      w', "  'u':", '    - k', "  'q': 'one", "    two'", "  'z': 'last'", '',
  ].join('\n'),
};

const BROKEN: Record<string, string> = {
  empty: '',
  onlyComments: '# nothing\n\n',
  onlyMarker: '---\n',
  scalarDocument: "'just text'\n",
  sequenceDocument: '- a\n- b\n',
  emptyFlowDocument: '{}\n',
  twoTopLevelKeys: "'a':\n  'x': 1\n'b':\n  'y': 2\n",
  twoTopLevelKeysAfterContentError: "'a':\n  'bad/name': 1\n'b': 2\n",
  contentErrorThenSyntaxError: "'a':\n  'bad/name': 1\n  'b': 1\n  'b': 2\n",
  duplicateKey: "'a':\n  'b': 1\n  'c':\n    'd': 1\n  'b': 2\n",
  duplicateQuotedAndPlain: "'a':\n  'b': 1\n  b: 2\n",
  // The keys of a mapping are a list up to 16, then a set; a level's list is reused by the next node at its depth.
  duplicateAfterManyKeys: `'a':\n  'n1':\n${Array.from({ length: 20 }, (_, i) => `    'k${i}': ${i}\n`).join('')}  'n2':\n${Array.from({ length: 20 }, (_, i) => `    'k${i}': ${i}\n`).join('')}    'k3': 3\n`,
  duplicateInReusedLevel: "'a':\n  'n1':\n    'x': 1\n    'y': 2\n  'n2':\n    'y': 1\n    'x': 2\n    'y': 3\n",
  duplicateInPiece: "'a':\n  'b': 1\n  ? 'b'\n  : 2\n",
  rootScalar: "'a': 'b'\n",
  rootSequence: "'a': [1]\n",
  badNodeName: "'a':\n  'x/y':\n    'z': 1\n",
  badPropertyName: "'a':\n  'p[1]': 1\n",
  reservedPrefix: "'a':\n  'JCR:title': 1\n",
  emptyKey: "'a':\n  '': 1\n",
  nonStringKey: "'a':\n  'x': 1\n  ? ['k']\n  : 2\n",
  badLong: "'a':\n  'n': !long 'abc'\n",
  badDecimal: "'a':\n  'n': !decimal 'x1'\n",
  badBinary: "'a':\n  'b': !binary 'a*b='\n",
  truncatedBinary: "'a':\n  'b': !binary 'aGVsbG8gd29ybGQ=a'\n",
  unknownTag: "'a':\n  'b': !nosuchtype 'x'\n",
  nullInSequence: "'a':\n  'b': [1, ~]\n",
  mapInSequence: "'a':\n  'b': [{'c': 1}]\n",
  explicitTypesDisagree: "'a':\n  'b': [!long 1, !double 2]\n",
  indentBetween: "'r':\n  'a':\n      'x': 1\n    'y': 2\n  'b': 1\n",
  deeperAfterLeaf: "'r':\n  'a': 1\n    'b': 2\n",
  sequenceAtMapLevel: "'r':\n  'a': 1\n  - x\n",
  secondDocument: "'r':\n  'a': 1\n---\n'b': 2\n",
  contentAfterDocumentEnd: "'r':\n  'a': 1\n...\n'b': 2\n",
  unclosedQuote: "'r':\n  'a': 'abc\n  'b': 2\n",
  unclosedQuoteAtEnd: "'r':\n  'a': 'abc\n",
  quoteLessIndented: "'r':\n  'a': 'abc\n def'\n",
  quoteThenDeeper: "'r':\n  'a': 'abc\n    def'\n    more\n  'b': 1\n",
  tabIndent: "'r':\n\t'a': 1\n",
  tabAfterSpaces: "'r':\n  'a': 1\n  \t'b': 2\n",
  nestedMappingInValue: "'r':\n  'a': b: c\n",
  longKey: `'r':\n  '${'k'.repeat(1100)}': 1\n`,
  deepFlow: `${"{'n':".repeat(1001)}{'x': 1}${'}'.repeat(1001)}\n`,
  aliasBomb: (() => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const lines = ["'root':", `  'l0': &l0 {${keys.map((k) => `'${k}': 'lol'`).join(', ')}}`];
    for (let level = 1; level <= 8; level++) lines.push(`  'l${level}': &l${level} {${keys.map((k) => `'${k}': *l${level - 1}`).join(', ')}}`);
    return `${lines.join('\n')}\n`;
  })(),
  aliasBombAcrossItems: (() => {
    const lines = ["'root':", "  'l0': &l0 ['lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol']"];
    for (let level = 1; level <= 6; level++) lines.push(`  'l${level}': &l${level} [${Array(10).fill(`*l${level - 1}`).join(', ')}]`);
    return `${lines.join('\n')}\n`;
  })(),
};

describe('tricky shapes', () => {
  for (const [name, text] of Object.entries(TRICKY)) {
    it(name, async () => {
      await expectSame(text);
    });
  }
});

describe('broken files: the same error (reason and line)', () => {
  for (const [name, text] of Object.entries(BROKEN)) {
    it(name, async () => {
      const outcome = await expectSame(text, text.length > 10_000 ? [4096] : [1, 7, 64]);
      expect(outcome).toHaveProperty('error');
    });
  }
});
