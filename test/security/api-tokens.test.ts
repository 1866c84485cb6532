// Tests for API tokens: shape, verification (unknown, expired, malformed), and the tokens file
// (round trip, atomic replacement, mode 0600, invalid content).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { createToken, findToken, readTokens, revokeTokens, tokenPasswordCurrent, verifyToken, writeTokens } from '../../src/security/api-tokens.js';

let tmp: string;
beforeEach(() => { tmp = mkdtempSync(join(tmpdir(), 'petal-tokens-')); });
afterEach(() => { rmSync(tmp, { recursive: true, force: true }); });

const NOW = new Date('2025-01-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const PID = '0123456789abcdef';

describe('api tokens', () => {
  it('creates a ptl_ token whose record holds only its SHA-256', () => {
    const { token, record } = createToken({ user: 'alice', name: 'ci', passwordId: PID }, NOW);
    expect(token).toMatch(/^ptl_[A-Za-z0-9_-]{43}$/);
    expect(record).toEqual({ name: 'ci', user: 'alice', sha256: createHash('sha256').update(token).digest('hex'), created: NOW.toISOString(), passwordId: PID });
    expect(JSON.stringify(record)).not.toContain(token.slice(4));
    expect(createToken({ user: 'alice', name: 'ci', passwordId: PID }, NOW).token).not.toBe(token);
  });

  it('verifies a known token as its user', () => {
    const a = createToken({ user: 'alice', name: 'a', passwordId: PID }, NOW);
    const b = createToken({ user: 'bob', name: 'b', passwordId: PID }, NOW);
    const records = [a.record, b.record];
    expect(verifyToken(a.token, records, NOW)).toBe('alice');
    expect(verifyToken(b.token, records, NOW)).toBe('bob');
  });

  it('refuses unknown, altered and malformed tokens', () => {
    const a = createToken({ user: 'alice', name: 'a', passwordId: PID }, NOW);
    const other = createToken({ user: 'alice', name: 'other', passwordId: PID }, NOW);
    expect(verifyToken(other.token, [a.record], NOW)).toBeUndefined();
    const last = a.token.at(-1) === 'A' ? 'B' : 'A';
    expect(verifyToken(a.token.slice(0, -1) + last, [a.record], NOW)).toBeUndefined();
    for (const bad of ['', 'ptl_', a.token.slice(4), `${a.token}x`, a.record.sha256, ` ${a.token}`]) {
      expect(verifyToken(bad, [a.record], NOW)).toBeUndefined();
    }
    expect(verifyToken(a.token, [], NOW)).toBeUndefined();
  });

  it('refuses an expired token', () => {
    const { token, record } = createToken({ user: 'alice', name: 'short', passwordId: PID, expiresInDays: 2 }, NOW);
    expect(record.expires).toBe(new Date(NOW.getTime() + 2 * DAY).toISOString());
    expect(verifyToken(token, [record], new Date(NOW.getTime() + 2 * DAY - 1))).toBe('alice');
    expect(verifyToken(token, [record], new Date(NOW.getTime() + 2 * DAY))).toBeUndefined();
    expect(() => createToken({ user: 'alice', name: 'x', passwordId: PID, expiresInDays: 0 })).toThrow(RangeError);
    expect(() => createToken({ user: 'alice', name: 'bad name', passwordId: PID })).toThrow(RangeError);
  });

  it('writes and reads the tokens file atomically with mode 0600', () => {
    const file = join(tmp, 'tokens.yaml');
    expect(readTokens(file)).toEqual([]);
    const a = createToken({ user: 'alice', name: 'a', passwordId: PID, expiresInDays: 30 }, NOW);
    writeTokens(file, [a.record]);
    const b = createToken({ user: 'bob', name: 'b', passwordId: PID }, NOW);
    writeTokens(file, [...readTokens(file), b.record]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readTokens(file)).toEqual([a.record, b.record]);
    expect(readdirSync(tmp)).toEqual(['tokens.yaml']); // no temp file left behind
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(a.token);
    expect(verifyToken(b.token, readTokens(file), NOW)).toBe('bob');
  });

  it('reports an invalid tokens file with its line', () => {
    const file = join(tmp, 'tokens.yaml');
    writeFileSync(file, 'tokens:\n  - name: a\n    user: alice\n    sha256: nothex\n    created: 2025-01-01T00:00:00Z\n');
    let err: unknown;
    try { readTokens(file); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).reason).toMatch(/tokens\.0\.sha256/);
    expect((err as ConfigError).line).toBe(4);
  });

  // Issue 28 point 12: a token is bound to its user's password (passwordId), and can be revoked by user.
  it('stores the passwordId, reads records of older versions without one, and revokes by any rule', () => {
    const file = join(tmp, 'tokens.yaml');
    const a = createToken({ user: 'alice', name: 'a', passwordId: PID }, NOW);
    const b = createToken({ user: 'bob', name: 'b', passwordId: PID }, NOW);
    const c = createToken({ user: 'alice', name: 'c', passwordId: PID }, NOW);
    writeTokens(file, [a.record, b.record, c.record]);
    expect(readFileSync(file, 'utf8')).toContain(`passwordId: ${PID}`);
    expect(findToken(a.token, readTokens(file), NOW)).toEqual(a.record);
    expect(tokenPasswordCurrent(a.record, PID)).toBe(true);
    expect(tokenPasswordCurrent(a.record, 'fedcba9876543210')).toBe(false);
    expect(tokenPasswordCurrent(a.record, undefined)).toBe(false);
    const { passwordId: _, ...legacy } = a.record;
    expect(tokenPasswordCurrent(legacy, 'fedcba9876543210')).toBe(true);
    expect(() => createToken({ user: 'alice', name: 'x', passwordId: 'nothex' })).toThrow(RangeError);

    expect(revokeTokens(file, (r) => r.user === 'alice').map((r) => r.name)).toEqual(['a', 'c']);
    expect(readTokens(file)).toEqual([b.record]);
    const before = statSync(file).mtimeMs;
    expect(revokeTokens(file, (r) => r.user === 'nobody')).toEqual([]);
    expect(statSync(file).mtimeMs).toBe(before); // nothing revoked, nothing written
    expect(revokeTokens(join(tmp, 'missing.yaml'), () => true)).toEqual([]);

    writeFileSync(file, 'tokens:\n  - name: a\n    user: alice\n    sha256: ' + a.record.sha256 + '\n    created: 2025-01-01T00:00:00Z\n    passwordId: XYZ\n');
    expect(() => readTokens(file)).toThrow(/tokens\.0\.passwordId/);
  });
});
