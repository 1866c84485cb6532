import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseYamlExport } from '../../src/ingest/import-yaml.js';
import { ImportError } from '../../src/ingest/import-error.js';
import type { NodeDraft } from '../../src/repository/import-document.js';
import type { StoredProperty } from '../../src/model/property-type.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
let spoolDir: string;
beforeEach(async () => { spoolDir = await mkdtemp(join(tmpdir(), 'petal-yaml-')); });
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

async function parseText(fileName: string, text: string) {
  const file = join(spoolDir, fileName);
  await writeFile(file, text);
  return parseYamlExport(file, { spoolDir: join(spoolDir, 'blobs') });
}

async function expectImportError(fileName: string, text: string, line: number, reason: RegExp): Promise<void> {
  const err = await parseText(fileName, text).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ImportError);
  expect(err).toMatchObject({ file: join(spoolDir, fileName), line });
  expect((err as ImportError).reason).toMatch(reason);
}

describe('parseYamlExport on a real page export', () => {
  const file = join(FIXTURES, 'travel-spa', 'website.react-minimal.yaml');

  it('reads the root node with its system properties', async () => {
    const doc = await parseYamlExport(file, { spoolDir });
    expect(doc).toMatchObject({ source: file, workspace: 'website', parentPath: '/', blobs: [] });
    expect(doc.roots).toHaveLength(1);
    const root = doc.roots[0];
    expect(root).toMatchObject({
      name: 'react-minimal', id: '066761ae-f69b-4029-9900-496259837d2d', type: 'cms:page', mixins: ['cms:hasVersion'], line: 1,
    });
    expect(root.properties.map((p) => p[0])).not.toContain('jcr:uuid');
    expect(prop(root, 'cms:activationStatus')).toEqual(['cms:activationStatus', 'Boolean', true]);
    expect(prop(root, 'cms:created')).toEqual(['cms:created', 'Date', '2020-02-01T13:45:49.952+07:00']);
    expect(prop(root, 'cms:template')).toEqual(['cms:template', 'String', 'react-minimal-lm:pages/basic']);
    expect(prop(root, 'title')).toEqual(['title', 'String', 'React Minimal']);
  });

  it('reads mappings as child nodes in file order, quoted numeric names included', async () => {
    const [root] = (await parseYamlExport(file, { spoolDir })).roots;
    expect(root.children.map((c) => c.name)).toEqual(['main', 'contact', 'extras']);
    expect(child(root, 'extras').children.map((c) => c.name)).toEqual(['0', '00', '01']);
    const main = child(root, 'main');
    expect(main).toMatchObject({ type: 'cms:area', line: 14 });
    expect(main.children.map((c) => c.name)).toEqual(['00', '01']);
    expect(child(main, '00')).toMatchObject({ type: 'cms:component', line: 24 });
    expect(prop(child(main, '00'), 'image')).toEqual(['image', 'String', 'jcr:090eb9c4-b35b-4869-a12f-6ea80292cba4']);
  });

  it('keeps multi-line rich text exactly as YAML reads it', async () => {
    const [root] = (await parseYamlExport(file, { spoolDir })).roots;
    const expected = parse(await readFile(file, 'utf8'))['react-minimal'].main['01'];
    const paragraph = child(root, 'main', '01');
    expect(prop(paragraph, 'richText')).toEqual(['richText', 'String', expected.richText]);
    expect(prop(paragraph, 'richText_de')).toEqual(['richText_de', 'String', expected.richText_de]);
    expect(expected.richText).toContain('</p>\n\n<p>Throw wide');
  });
});

describe('parseYamlExport on the personalization export', () => {
  it('reads weak references, empty multi-values and variant subtrees', async () => {
    const file = join(FIXTURES, 'travel-spa', 'website.react-minimal.personalization.yaml');
    const doc = await parseYamlExport(file, { spoolDir });
    expect(doc).toMatchObject({ workspace: 'website', parentPath: '/react-minimal' });
    const variant = child(doc.roots[0], 'main', '0', 'variants', 'variant-0');
    expect(variant.mixins).toEqual(['cms:variant']);
    expect(prop(variant, 'cms:variationOf')).toEqual(['cms:variationOf', 'WeakReference', 'e254b7bc-bac6-4569-a287-f532a84e8bba']);
    expect(prop(variant, 'cms:assignedSegments')).toEqual(['cms:assignedSegments', 'String', []]);
    const ruleSet = child(variant, 'cms:ruleSet');
    expect(ruleSet.type).toBeUndefined();
    expect(child(ruleSet, 'voters', 'voter0').properties.map((p) => p[0]))
      .toEqual(['class', 'cms:created', 'cms:createdBy', 'traitId', 'value']);
  });
});

describe('parseYamlExport value types', () => {
  it('infers plain scalars and honours tags', async () => {
    const file = join(FIXTURES, 'yaml', 'website.types.yaml');
    const doc = await parseYamlExport(file, { spoolDir });
    const [root] = doc.roots;
    expect(root).toMatchObject({
      name: 'types', type: 'cms:page', mixins: ['cms:hasVersion', 'mix:lockable'], id: '11111111-2222-3333-4444-555555555555',
    });
    const uuid = 'e254b7bc-bac6-4569-a287-f532a84e8bba';
    const hello = createHash('sha256').update('hello world').digest('hex');
    expect(root.properties).toEqual([
      ['quotedNumber', 'String', '42'],
      ['long', 'Long', 42],
      ['negative', 'Long', -7],
      ['double', 'Double', 3.25],
      ['bool', 'Boolean', false],
      ['dateUtc', 'Date', '2021-10-14T10:48:15.000+00:00'],
      ['dateNoMillis', 'Date', '2021-10-14T10:48:15.000+02:00'],
      ['plain', 'String', 'hello world'],
      ['decimal', 'Decimal', '12.50'],
      ['taggedLong', 'Long', 12],
      ['weak', 'WeakReference', uuid],
      ['ref', 'Reference', uuid],
      ['uri', 'URI', 'https://example.com/a'],
      ['binary', 'Binary', hello],
      ['coreBinary', 'Binary', hello],
      ['longs', 'Long', [1, 2, 3]],
      ['mixed', 'String', ['1', 'a']],
      ['weaks', 'WeakReference', ['a', 'b']],
      ['none', 'String', []],
      ['block', 'String', 'line one\nline two\n'],
    ]);
    expect(root.children.map((c) => [c.name, c.type])).toEqual([['cms:child', 'cms:contentNode'], ['emptyNode', undefined]]);
    expect(doc.blobs).toEqual([{ hash: hello, size: 11, file: join(spoolDir, hello) }]);
    expect(await readFile(join(spoolDir, hello), 'utf8')).toBe('hello world');
  });
});

describe('parseYamlExport errors', () => {
  it('reports invalid YAML with file and line', async () => {
    const file = join(FIXTURES, 'invalid', 'website.broken.yaml');
    const err = await parseYamlExport(file, { spoolDir }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect(err).toMatchObject({ file, line: 6 });
    expect((err as Error).message).toMatch(/^.*website\.broken\.yaml:6: /);
  });

  it('rejects more than one top-level key, non-string keys and bad tagged values', async () => {
    await expectImportError('website.two.yaml', "'a':\n  'x': 1\n'b':\n  'y': 2\n", 3, /more than one top-level key/);
    await expectImportError('website.key.yaml', "'a':\n  'x': 1\n  ? ['k']\n  : 2\n", 3, /key must be a non-empty string/);
    await expectImportError('website.long.yaml', "'a':\n  'x': 1\n  'n': !long 'abc'\n", 3, /bad !long value/);
    await expectImportError('website.dec.yaml', "'a':\n  'n': !decimal 'x1'\n", 2, /bad !decimal value/);
    await expectImportError('website.bin.yaml', "'a':\n  'b': !binary 'a*b='\n", 2, /bad !binary value/);
    await expectImportError('website.tag.yaml', "'a':\n  'b': !nosuchtype 'x'\n", 2, /unknown tag !nosuchtype/);
    await expectImportError('website.dup.yaml', "'a':\n  'b': 1\n  'b': 2\n", 3, /unique/);
    await expectImportError('website.empty.yaml', '', 1, /empty/);
    await expectImportError('website.scalar.yaml', "'a': 'b'\n", 1, /must be a mapping/);
  });
});

describe('parseYamlExport bounds (a hostile export)', () => {
  /** Nine levels of nine aliases: 1.2 KB written, 9^9 (387 million) nodes once expanded. */
  function aliasBomb(): string {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const lines = ["'root':", `  'l0': &l0 {${keys.map((k) => `'${k}': 'lol'`).join(', ')}}`];
    for (let level = 1; level <= 8; level++) {
      lines.push(`  'l${level}': &l${level} {${keys.map((k) => `'${k}': *l${level - 1}`).join(', ')}}`);
    }
    return `${lines.join('\n')}\n`;
  }

  it('refuses a "billion laughs" of nested aliases with the line of the alias that crosses the bound', async () => {
    const text = aliasBomb();
    expect(text.length).toBeLessThan(1300);
    const err = await parseText('website.bomb.yaml', text).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).reason).toMatch(/aliases expand to more than 10000 nodes/);
    expect((err as ImportError).line).toBeGreaterThan(1);
  });

  it('still reads a few aliases', async () => {
    const doc = await parseText('website.alias.yaml', "'root':\n  'a': &x {'t': 'one'}\n  'b': *x\n  'c': *x\n");
    expect(doc.roots[0]!.children.map((c) => [c.name, c.properties])).toEqual([
      ['a', [['t', 'String', 'one']]], ['b', [['t', 'String', 'one']]], ['c', [['t', 'String', 'one']]],
    ]);
  });

  it('refuses deeply nested nodes with an import error, not a crash', async () => {
    const depth = 1001;
    const text = `${"{'n':".repeat(depth)}{'x': 1}${'}'.repeat(depth)}\n`;
    const err = await parseText('website.deep.yaml', text).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).reason).toMatch(/nested (more than 1000 deep|too deep to read)/);
    expect((err as ImportError).line).toBe(1);
  });

  it('refuses a value longer than 16M characters (a binary of that size is fine)', async () => {
    const long = 'x'.repeat(16 * 1024 * 1024 + 1);
    await expectImportError('website.big.yaml', `'a':\n  'v': '${long}'\n`, 2, /"v": a value longer than 16777216 characters/);
    const doc = await parseText('website.bigbin.yaml', `'a':\n  'b': !binary '${Buffer.alloc(12 * 1024 * 1024 + 3).toString('base64')}'\n`);
    expect(doc.blobs[0]!.size).toBe(12 * 1024 * 1024 + 3);
  });
});
