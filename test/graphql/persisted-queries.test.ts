// Persisted queries: Apollo's automatic protocol (hash alone, hash with query, over GET or POST),
// a store bounded in entries and bytes, and named queries from light modules.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadNamedQueries, PersistedQueries, PersistedQueryError, resolvePersisted, sha256Hex,
} from '../../src/graphql/persisted-queries.js';

const q = (n: number): string => `{ books(offset: ${n}) { title } }`;
const ext = (sha256Hash: string, version: unknown = 1) => ({ persistedQuery: { version, sha256Hash } });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('nothing was thrown');
}

describe('sha256Hex', () => {
  it('is the SHA-256 of the UTF-8 text in lower-case hex', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe(sha256Hex('\u00e9'));
    expect(sha256Hex('é')).not.toBe(sha256Hex('e\u0301'));
  });
});

describe('PersistedQueries', () => {
  it('keeps a registered query under its hash, found in any case of hex', () => {
    const store = new PersistedQueries();
    store.register(sha256Hex(q(1)), q(1));
    expect(store.lookup(sha256Hex(q(1)))).toBe(q(1));
    expect(store.lookup(sha256Hex(q(1)).toUpperCase())).toBe(q(1));
    expect(store.lookup(sha256Hex(q(2)))).toBeUndefined();
  });

  it('refuses a hash that is not the query\'s, or not a hash at all', () => {
    const store = new PersistedQueries();
    const err = thrown(() => store.register(sha256Hex(q(1)), q(2)));
    expect(err).toBeInstanceOf(PersistedQueryError);
    expect((err as PersistedQueryError).code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
    expect((err as Error).message).toContain(sha256Hex(q(2)));
    expect((thrown(() => store.register('abc', q(1))) as PersistedQueryError).code).toBe('PERSISTED_QUERY_INVALID');
    expect(store.lookup(sha256Hex(q(1)))).toBeUndefined();
    expect(store.stats().automatic).toBe(0);
  });

  it('holds at most maxEntries, evicting the least recently used', () => {
    const store = new PersistedQueries({ maxEntries: 2 });
    store.register(sha256Hex(q(1)), q(1));
    store.register(sha256Hex(q(2)), q(2));
    expect(store.lookup(sha256Hex(q(1)))).toBe(q(1)); // 1 is now the most recent
    store.register(sha256Hex(q(3)), q(3));
    expect(store.lookup(sha256Hex(q(2)))).toBeUndefined();
    expect(store.lookup(sha256Hex(q(1)))).toBe(q(1));
    expect(store.lookup(sha256Hex(q(3)))).toBe(q(3));
    expect(store.stats().automatic).toBe(2);
  });

  it('holds at most maxBytes, whatever clients register, and keeps no query larger than that', () => {
    const store = new PersistedQueries({ maxBytes: 20_000 });
    for (let i = 0; i < 1000; i++) store.register(sha256Hex(q(i)), q(i));
    expect(store.stats().automaticBytes).toBeLessThanOrEqual(20_000);
    expect(store.stats().automatic).toBeGreaterThan(10);
    expect(store.stats().automatic).toBeLessThan(1000);
    expect(store.lookup(sha256Hex(q(999)))).toBe(q(999));
    expect(store.lookup(sha256Hex(q(0)))).toBeUndefined();
    const huge = `{ books { ${'title '.repeat(5000)}} }`;
    store.register(sha256Hex(huge), huge);
    expect(store.lookup(sha256Hex(huge))).toBeUndefined();
  });

  it('rejects bounds that are not positive integers', () => {
    expect(() => new PersistedQueries({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new PersistedQueries({ maxBytes: -1 })).toThrow(/maxBytes must be a positive integer/);
  });

  it('finds named queries by name and by hash, and never evicts them', () => {
    const store = new PersistedQueries({ maxEntries: 1 });
    store.addNamed('books', q(100));
    for (let i = 0; i < 10; i++) store.register(sha256Hex(q(i)), q(i));
    expect(store.byName('books')).toBe(q(100));
    expect(store.lookup(sha256Hex(q(100)))).toBe(q(100));
    expect(store.lookupNamed(sha256Hex(q(100)))).toBe(q(100));
    expect(store.lookupNamed(sha256Hex(q(9)))).toBeUndefined();
    expect(store.byName('nothing')).toBeUndefined();
    // registering a named query's text keeps the automatic entries as they were
    store.register(sha256Hex(q(100)), q(100));
    expect(store.lookup(sha256Hex(q(9)))).toBe(q(9));
  });

  it('replaces a named query given again under its name, and forgets the old hash', () => {
    const store = new PersistedQueries();
    store.addNamed('books', q(1));
    store.addNamed('same', q(1));
    store.addNamed('books', q(2));
    expect(store.byName('books')).toBe(q(2));
    expect(store.lookup(sha256Hex(q(2)))).toBe(q(2));
    expect(store.lookup(sha256Hex(q(1)))).toBe(q(1)); // still the text of 'same'
    store.addNamed('same', q(3));
    expect(store.lookup(sha256Hex(q(1)))).toBeUndefined();
  });

  it('adopts the queries clients registered before a reload, in their order of use, but not the old named ones', () => {
    const before = new PersistedQueries();
    before.addNamed('old', q(50));
    for (const i of [1, 2, 3]) before.register(sha256Hex(q(i)), q(i));
    before.lookup(sha256Hex(q(1))); // order of use: 2, 3, 1
    const after = new PersistedQueries({ maxEntries: 2 });
    after.addNamed('new', q(3));
    after.adoptAutomatic(before);
    expect(after.lookup(sha256Hex(q(50)))).toBeUndefined();
    expect(after.lookup(sha256Hex(q(1)))).toBe(q(1));
    expect(after.lookup(sha256Hex(q(2)))).toBe(q(2));
    expect(after.lookup(sha256Hex(q(3)))).toBe(q(3)); // named now
    expect(after.stats()).toMatchObject({ named: 1, automatic: 2 });
    const small = new PersistedQueries({ maxEntries: 1 });
    small.adoptAutomatic(before);
    expect(small.lookup(sha256Hex(q(1)))).toBe(q(1)); // the most recently used survives
    expect(small.stats().automatic).toBe(1);
  });
});

describe('resolvePersisted', () => {
  const on = { automatic: true };
  const off = { automatic: false };

  it('runs a query sent alone, and refuses a request with neither query nor hash', () => {
    const store = new PersistedQueries();
    expect(resolvePersisted({ query: q(1) }, store, on)).toEqual({ query: q(1) });
    expect(resolvePersisted({ query: q(1), extensions: { other: true } }, store, off)).toEqual({ query: q(1) });
    expect(resolvePersisted({}, store, on)).toEqual({ error: { code: 'QUERY_MISSING', message: 'The request has no query' } });
    expect(store.stats().automatic).toBe(0);
  });

  it('answers PersistedQueryNotFound to an unknown hash, then registers the query sent with it, then finds it', () => {
    const store = new PersistedQueries();
    const hash = sha256Hex(q(1));
    expect(resolvePersisted({ extensions: ext(hash) }, store, on)).toEqual({ error: { code: 'PERSISTED_QUERY_NOT_FOUND', message: 'PersistedQueryNotFound' } });
    expect(resolvePersisted({ query: q(1), extensions: ext(hash) }, store, on)).toEqual({ query: q(1) });
    expect(resolvePersisted({ extensions: ext(hash) }, store, on)).toEqual({ query: q(1) });
    expect(resolvePersisted({ query: '', extensions: ext(hash) }, store, on)).toEqual({ query: q(1) });
  });

  it('reads extensions sent over GET as JSON text', () => {
    const store = new PersistedQueries();
    store.register(sha256Hex(q(1)), q(1));
    expect(resolvePersisted({ extensions: JSON.stringify(ext(sha256Hex(q(1)))) }, store, on)).toEqual({ query: q(1) });
  });

  it('refuses a query whose hash does not match, registering nothing', () => {
    const store = new PersistedQueries();
    const result = resolvePersisted({ query: q(2), extensions: ext(sha256Hex(q(1))) }, store, on);
    expect(result).toMatchObject({ error: { code: 'PERSISTED_QUERY_HASH_MISMATCH' } });
    expect(store.stats().automatic).toBe(0);
    expect(resolvePersisted({ query: q(2), extensions: ext(sha256Hex(q(1))) }, store, off)).toMatchObject({ error: { code: 'PERSISTED_QUERY_HASH_MISMATCH' } });
  });

  it('explains malformed extensions', () => {
    const store = new PersistedQueries();
    const hash = sha256Hex(q(1));
    const cases: [unknown, string][] = [
      ['{"persistedQuery":', 'extensions is not valid JSON'],
      [[1], 'extensions must be a JSON object'],
      [42, 'extensions must be a JSON object'],
      [{ persistedQuery: 'abc' }, 'extensions.persistedQuery must be an object'],
      [ext(hash, 2), 'extensions.persistedQuery.version 2 is not supported (only 1)'],
      [{ persistedQuery: { sha256Hash: hash } }, 'extensions.persistedQuery.version missing is not supported (only 1)'],
      [ext('xyz'), 'extensions.persistedQuery.sha256Hash must be 64 hexadecimal digits'],
      [ext(`${hash}0`), 'extensions.persistedQuery.sha256Hash must be 64 hexadecimal digits'],
      [{ persistedQuery: { version: 1, sha256Hash: 5 } }, 'extensions.persistedQuery.sha256Hash must be 64 hexadecimal digits'],
    ];
    for (const [extensions, message] of cases) {
      expect(resolvePersisted({ query: q(1), extensions }, store, on)).toEqual({ error: { code: 'PERSISTED_QUERY_INVALID', message } });
    }
    expect(resolvePersisted({ query: 5 as unknown as string }, store, on)).toEqual({ error: { code: 'PERSISTED_QUERY_INVALID', message: 'query must be a string' } });
  });

  it('when automatic queries are off, runs named queries by hash and answers PersistedQueryNotSupported to the rest', () => {
    const store = new PersistedQueries();
    store.addNamed('books', q(7));
    store.register(sha256Hex(q(1)), q(1));
    const notSupported = { error: { code: 'PERSISTED_QUERY_NOT_SUPPORTED', message: 'PersistedQueryNotSupported' } };
    expect(resolvePersisted({ extensions: ext(sha256Hex(q(7))) }, store, off)).toEqual({ query: q(7) });
    expect(resolvePersisted({ query: q(7), extensions: ext(sha256Hex(q(7))) }, store, off)).toEqual({ query: q(7) });
    expect(resolvePersisted({ extensions: ext(sha256Hex(q(1))) }, store, off)).toEqual(notSupported);
    expect(resolvePersisted({ query: q(2), extensions: ext(sha256Hex(q(2))) }, store, off)).toEqual(notSupported);
    expect(store.lookup(sha256Hex(q(2)))).toBeUndefined();
    expect(resolvePersisted({ query: q(2) }, store, off)).toEqual({ query: q(2) });
  });
});

describe('loadNamedQueries', () => {
  let dir: string;
  let first: string;
  let second: string;

  const write = (module: string, name: string, text: string | Buffer): string => {
    const folder = join(module, 'graphql', 'queries');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, name), text);
    return join(folder, name);
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'petal-named-queries-'));
    // two light-modules folders: one with the modules first and plain, the other with second
    first = join(dir, 'light-modules', 'first');
    second = join(dir, 'more-modules', 'second');
    write(first, 'books.graphql', '{ books { title } }\n');
    write(first, 'authors.list.graphql', 'query Authors { authors { name } }');
    write(first, 'notes.txt', 'not a query');
    write(first, 'broken.graphql', '{ books { title }');
    write(first, 'empty.graphql', '  \n');
    write(first, 'big.graphql', `{ books { ${'title '.repeat(20)}} }`);
    write(first, 'latin1.graphql', Buffer.from([0x7b, 0x20, 0xe9, 0x20, 0x7d]));
    write(first, 'with space.graphql', '{ books { title } }');
    mkdirSync(join(first, 'graphql', 'queries', 'folder.graphql'));
    symlinkSync(join(dir, 'missing'), join(first, 'graphql', 'queries', 'dangling.graphql'));
    write(second, 'books.graphql', '{ books { publisher } }');
    write(second, 'book.graphql', '{ book(id: "1") { title } }');
    mkdirSync(join(dir, 'light-modules', 'plain', 'contentTypes'), { recursive: true });
    writeFileSync(join(dir, 'light-modules', 'README.md'), 'not a module');
    symlinkSync(second, join(dir, 'light-modules', 'zlinked'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const roots = (): string[] => [join(dir, 'light-modules'), join(dir, 'more-modules')];

  it('reads every <module>/graphql/queries/*.graphql of the light-modules folders, named after the file, the first module keeping a name', () => {
    const { queries } = loadNamedQueries([...roots(), join(dir, 'absent')], { maxBytes: 100 });
    expect(queries.map((x) => [x.name, x.query])).toEqual([
      ['authors.list', 'query Authors { authors { name } }'],
      ['books', '{ books { title } }\n'],
      ['book', '{ book(id: "1") { title } }'], // through the link zlinked
    ]);
    expect(queries[1]!.file).toBe(join(first, 'graphql', 'queries', 'books.graphql'));
    expect(queries[2]!.file).toBe(join(dir, 'light-modules', 'zlinked', 'graphql', 'queries', 'book.graphql'));
    expect(loadNamedQueries([first]).queries).toEqual([]); // a module is not a light-modules folder
  });

  it('reports the files it cannot use, and why', () => {
    const { problems } = loadNamedQueries(roots(), { maxBytes: 100 });
    const at = (module: string, name: string) => join(module, 'graphql', 'queries', name);
    const linked = join(dir, 'light-modules', 'zlinked');
    expect(problems).toEqual([
      { file: at(first, 'big.graphql'), reason: 'is 133 bytes, over the limit of 100' },
      { file: at(first, 'broken.graphql'), reason: 'is not a GraphQL document: Syntax Error: Expected Name, found <EOF>. (line 1, column 18)' },
      { file: at(first, 'dangling.graphql'), reason: 'cannot be read (ENOENT)' },
      { file: at(first, 'empty.graphql'), reason: 'is empty' },
      { file: at(first, 'folder.graphql'), reason: 'is not a file' },
      { file: at(first, 'latin1.graphql'), reason: 'is not UTF-8 text' },
      { file: at(first, 'with space.graphql'), reason: 'the name "with space" may hold only letters, digits, \'_\', \'-\' and \'.\' (not first)' },
      { file: at(linked, 'books.graphql'), reason: `the name "books" is already taken by ${at(first, 'books.graphql')}; this file is ignored` },
      { file: at(second, 'book.graphql'), reason: `the name "book" is already taken by ${at(linked, 'book.graphql')}; this file is ignored` },
      { file: at(second, 'books.graphql'), reason: `the name "books" is already taken by ${at(first, 'books.graphql')}; this file is ignored` },
    ]);
  });

  it('reports a queries folder that is not a folder, and loads big files up to the default limit', () => {
    const odd = join(dir, 'odd-modules', 'odd');
    mkdirSync(join(odd, 'graphql'), { recursive: true });
    writeFileSync(join(odd, 'graphql', 'queries'), 'a file');
    expect(loadNamedQueries([join(dir, 'odd-modules')]).problems).toEqual([{ file: join(odd, 'graphql', 'queries'), reason: 'cannot be listed (ENOTDIR)' }]);
    expect(loadNamedQueries(roots()).queries.map((x) => x.name)).toContain('big');
  });

  it('gives queries a store finds by name and by sha256', () => {
    const store = new PersistedQueries();
    for (const named of loadNamedQueries(roots()).queries) store.addNamed(named.name, named.query);
    expect(store.byName('book')).toBe('{ book(id: "1") { title } }');
    expect(resolvePersisted({ extensions: ext(sha256Hex('{ books { title } }\n')) }, store, { automatic: false })).toEqual({ query: '{ books { title } }\n' });
  });
});
