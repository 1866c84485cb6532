// Issue 32: a real client against a real server. `petal serve` (the built CLI, as users start it)
// with the books-and-authors module and content; graphql-request sends queries by POST and by GET,
// with variables, and gets GraphQL errors as its ClientError.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientError, GraphQLClient } from 'graphql-request';
import { BOOKCASE_SECURITY, FIXTURES } from './bookcase.js';

const PETAL = join(import.meta.dirname, '..', '..', 'bin', 'petal.js');

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  return port;
}

let dir: string;
let child: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-graphql-client-'));
  const port = await freePort();
  writeFileSync(join(dir, 'petal.yaml'), [
    `modules: ${JSON.stringify(join(FIXTURES, 'light-modules'))}`,
    `content: [${JSON.stringify(join(FIXTURES, 'content'))}]`,
    `store: sqlite:${join(dir, 'petal.db')}`,
    'logLevel: warn',
    `security: ${JSON.stringify(BOOKCASE_SECURITY)}`,
    'sites: { bookcase: { locales: [en, de], defaultLocale: en } }',
  ].join('\n'));
  child = spawn(process.execPath, [PETAL, 'serve', '--config', join(dir, 'petal.yaml'), '--port', String(port), '--host', '127.0.0.1'],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => { output += b.toString(); });
  child.stderr?.on('data', (b: Buffer) => { output += b.toString(); });
  url = `http://127.0.0.1:${port}/.graphql`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/.health`);
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`petal serve did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('graphql-request against petal serve', () => {
  it('runs a query with variables by POST, and by GET', async () => {
    const query = 'query Books($limit: Int, $locale: Locale) { books(sort: TITLE_ASC, limit: $limit, locale: $locale) { title authors { name } } }';
    const post = new GraphQLClient(url);
    const data = await post.request<{ books: { title: string; authors: { name: string }[] }[] }>(query, { limit: 2, locale: 'de' });
    expect(data.books).toEqual([
      { title: 'A Brief History of Time', authors: [{ name: 'H. G. Wells' }] },
      { title: 'Über die Entstehung der Arten', authors: [{ name: 'Charles Darwin' }] },
    ]);
    const get = new GraphQLClient(url, { method: 'GET' });
    const viaGet = await get.request<{ books: { title: string }[] }>('query($l: Int) { books(sort: TITLE_DESC, limit: $l) { title } }', { l: 1 });
    expect(viaGet.books).toEqual([{ title: 'The War of the Worlds' }]);
  });

  it('GraphQL errors reach the client as ClientError with their message and code', async () => {
    const client = new GraphQLClient(url);
    const err = await client.request('{ books { nope } }').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    const e = err as ClientError;
    expect(e.response.status).toBe(400);
    expect(e.response.errors?.[0]?.message).toContain('nope');
  });
});
