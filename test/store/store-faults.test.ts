// storeFaultOf: the errors of PostgreSQL, node-postgres, Node's sockets and SQLite that mean "the store
// cannot be reached now" (503) or "text the store cannot hold" (400), on real errors where they can be
// produced here (PostgreSQL ones with PETAL_TEST_PG), and how the error handler answers them over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/store/sqlite/driver.js';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PetalError } from '../../src/errors.js';
import { errorAnswer } from '../helpers/error-answer.js';
import { StoreClosedError, isStoreUnreachable, storeFaultOf } from '../../src/store/store-faults.js';

const PG = process.env.PETAL_TEST_PG ?? '';

async function caught(fn: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

const dir = mkdtempSync(join(tmpdir(), 'petal-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('storeFaultOf', () => {
  it('a refused connection (nothing listens on the port) is unreachable', async () => {
    const client = new pg.Client({ connectionString: 'postgres://petal@127.0.0.1:1/petal', connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    const err = await caught(() => client.connect());
    expect(storeFaultOf(err)).toBe('unreachable');
  });

  it('a pool that cannot hand out a connection in time, or that was ended, is unreachable', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://petal@127.0.0.1:1/petal', connectionTimeoutMillis: 1 });
    pool.on('error', () => undefined);
    expect(isStoreUnreachable(await caught(() => pool.query('SELECT 1')))).toBe(true);
    await pool.end();
    expect(isStoreUnreachable(await caught(() => pool.query('SELECT 1')))).toBe(true);
  });

  it('SQLite: busy, cannot open, closed connection are unreachable; a constraint is not', async () => {
    const file = join(dir, 'busy.db');
    const a = new Database(file);
    a.pragma('journal_mode = WAL');
    a.exec('CREATE TABLE t (x INTEGER PRIMARY KEY)');
    const b = new Database(file, { timeout: 0 });
    a.exec('BEGIN IMMEDIATE');
    const busy = await caught(() => b.exec('INSERT INTO t VALUES (1)'));
    expect((busy as { code: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(storeFaultOf(busy)).toBe('unreachable');
    a.exec('COMMIT');
    a.exec('INSERT INTO t VALUES (2)');
    const constraint = await caught(() => a.exec('INSERT INTO t VALUES (2)'));
    expect(storeFaultOf(constraint)).toBeUndefined();
    a.close();
    expect(storeFaultOf(await caught(() => a.prepare('SELECT 1')))).toBe('unreachable');
    b.close();
    // A folder where the database file should be: SQLITE_CANTOPEN.
    const cantOpen = await caught(() => new Database(dir).prepare('SELECT 1').get());
    expect((cantOpen as { code: string }).code).toBe('SQLITE_CANTOPEN');
    expect(storeFaultOf(cantOpen)).toBe('unreachable');
  });

  it('looks through causes and AggregateErrors; plain errors, PetalErrors and constraint violations are no fault', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' });
    expect(storeFaultOf(new AggregateError([refused], 'connect failed'))).toBe('unreachable');
    expect(storeFaultOf(new Error('wrapped', { cause: refused }))).toBe('unreachable');
    expect(storeFaultOf(new StoreClosedError('PostgresStore is not open'))).toBe('unreachable');
    expect(storeFaultOf(Object.assign(new Error('too many'), { code: '53300', severity: 'FATAL' }))).toBe('unreachable');
    expect(storeFaultOf(Object.assign(new Error('conn'), { code: '08006', severity: 'ERROR' }))).toBe('unreachable');
    expect(storeFaultOf(Object.assign(new Error('no file'), { code: 'ENOENT', syscall: 'open' }))).toBeUndefined();
    expect(storeFaultOf(Object.assign(new Error('dup'), { code: '23505', severity: 'ERROR' }))).toBeUndefined();
    expect(storeFaultOf(new Error('boom'))).toBeUndefined();
    expect(storeFaultOf(new PetalError('badRequest'))).toBeUndefined();
    expect(storeFaultOf(undefined)).toBeUndefined();
    const loop: { cause?: unknown } = new Error('loop');
    loop.cause = loop;
    expect(storeFaultOf(loop)).toBeUndefined();
  });
});

// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(PG === '')('storeFaultOf on PostgreSQL errors', () => {
  it('a database that does not exist (FATAL at connect) is unreachable', async () => {
    const url = new URL(PG);
    url.pathname = '/petal_no_such_database_for_sure';
    const client = new pg.Client({ connectionString: url.toString() });
    client.on('error', () => undefined);
    const err = await caught(() => client.connect());
    expect((err as { severity: string }).severity).toBe('FATAL');
    expect(storeFaultOf(err)).toBe('unreachable');
  });

  it('a terminated backend (57P01) and the dead client after it are unreachable', async () => {
    const victim = new pg.Client({ connectionString: PG });
    victim.on('error', () => undefined);
    await victim.connect();
    const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const killer = new pg.Client({ connectionString: PG });
    await killer.connect();
    const sleeping = caught(() => victim.query('SELECT pg_sleep(10)'));
    await new Promise((r) => setTimeout(r, 100));
    await killer.query('SELECT pg_terminate_backend($1)', [pid]);
    await killer.end();
    const err = await sleeping;
    expect((err as { code: string }).code).toBe('57P01');
    expect(storeFaultOf(err)).toBe('unreachable');
    expect(storeFaultOf(await caught(() => victim.query('SELECT 1')))).toBe('unreachable');
  });

  it('U+0000 in text or JSON is unstorable text; other invalid input is no store fault', async () => {
    const client = new pg.Client({ connectionString: PG });
    await client.connect();
    try {
      expect(storeFaultOf(await caught(() => client.query('SELECT $1::text', ['a\u0000b'])))).toBe('unstorableText');
      expect(storeFaultOf(await caught(() => client.query('SELECT $1::jsonb', [JSON.stringify({ a: 'a\u0000b' })])))).toBe('unstorableText');
      expect(storeFaultOf(await caught(() => client.query('SELECT $1::uuid', ['x'])))).toBeUndefined();
    } finally {
      await client.end();
    }
  });
});

describe('the error handler answers store faults', () => {
  const answer = errorAnswer;

  it('unreachable → 503 serviceUnavailable with Retry-After', async () => {
    const r = await answer(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' }));
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ error: { code: 'serviceUnavailable', message: 'The content store is not reachable' } });
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('a PetalError serviceUnavailable gets Retry-After too', async () => {
    const r = await answer(new PetalError('serviceUnavailable'));
    expect(r.status).toBe(503);
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('unstorable text → 400 badRequest; anything else stays 500 unknown', async () => {
    const r = await answer(Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021', severity: 'ERROR' }));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('badRequest');
    const other = await answer(Object.assign(new Error('duplicate key'), { code: '23505', severity: 'ERROR' }));
    expect(other.status).toBe(500);
    expect(other.body.error.code).toBe('unknown');
    expect(other.headers['retry-after']).toBeUndefined();
  });
});
