// Tests for the scrypt password hashes: format, round trip, refusals (wrong password, tampering,
// parameters out of bounds) and the dummy hash that makes unknown users cost the same time.
import { describe, expect, it } from 'vitest';
import { isPasswordHash, parsePasswordHash } from '../../src/config/password-hash-format.js';
import {
  DUMMY_HASH, hashPassword, passwordIdOf, rehashPassword, verifyAgainstDummy, verifyPassword,
} from '../../src/security/password-hash.js';

const FORMAT = /^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/;

/** Replaces one base64 character of the part at `index` (3 = salt, 4 = key) by another. */
function tamper(encoded: string, index: number): string {
  const parts = encoded.split('$');
  const part = parts[index]!;
  parts[index] = (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
  return parts.join('$');
}

describe('password hashes', () => {
  it('round-trips with the default parameters, a 16-byte salt and a 32-byte key', async () => {
    const encoded = await hashPassword('correct horse battery staple');
    expect(encoded).toMatch(FORMAT);
    const parsed = parsePasswordHash(encoded)!;
    expect(parsed.salt.length).toBe(16);
    expect(parsed.key.length).toBe(32);
    expect(await verifyPassword('correct horse battery staple', encoded)).toBe(true);
  });

  it('salts every hash differently', async () => {
    const [a, b] = await Promise.all([hashPassword('same password', { ln: 10, r: 8, p: 1 }), hashPassword('same password', { ln: 10, r: 8, p: 1 })]);
    expect(a).not.toBe(b);
  });

  it('refuses a wrong password, and close variants of the right one', async () => {
    const encoded = await hashPassword('s3cret-password', { ln: 10, r: 8, p: 1 });
    for (const wrong of ['s3cret-passwor', 's3cret-password ', 'S3cret-password', '']) {
      expect(await verifyPassword(wrong, encoded)).toBe(false);
    }
  });

  it('treats composed and decomposed accents as the same password (NFC)', async () => {
    const encoded = await hashPassword('caf\u00e9-au-lait', { ln: 10, r: 8, p: 1 });
    expect(await verifyPassword('cafe\u0301-au-lait', encoded)).toBe(true);
  });

  it('refuses a tampered string', async () => {
    const encoded = await hashPassword('tamper-proof', { ln: 10, r: 8, p: 1 });
    expect(await verifyPassword('tamper-proof', tamper(encoded, 3))).toBe(false);
    expect(await verifyPassword('tamper-proof', tamper(encoded, 4))).toBe(false);
    expect(await verifyPassword('tamper-proof', encoded.replace('ln=10', 'ln=11'))).toBe(false);
    expect(await verifyPassword('tamper-proof', encoded.replace('$scrypt$', '$argon2id$'))).toBe(false);
    expect(await verifyPassword('tamper-proof', encoded.slice(0, -8))).toBe(false);
    expect(await verifyPassword('tamper-proof', `${encoded}$extra`)).toBe(false);
    expect(await verifyPassword('tamper-proof', encoded.replace(/\$([^$]+)$/, '$!!notbase64!!'))).toBe(false);
    expect(await verifyPassword('tamper-proof', '')).toBe(false);
  });

  it('accepts other parameters within bounds', async () => {
    const encoded = await hashPassword('other-params', { ln: 11, r: 4, p: 2 });
    expect(encoded.startsWith('$scrypt$ln=11,r=4,p=2$')).toBe(true);
    expect(await verifyPassword('other-params', encoded)).toBe(true);
  });

  it('refuses parameters out of bounds without computing anything', async () => {
    const encoded = await hashPassword('bounds', { ln: 10, r: 8, p: 1 });
    for (const params of ['ln=9,r=8,p=1', 'ln=21,r=8,p=1', 'ln=10,r=0,p=1', 'ln=10,r=17,p=1', 'ln=10,r=8,p=0', 'ln=10,r=8,p=5']) {
      const bad = encoded.replace('ln=10,r=8,p=1', params);
      expect(isPasswordHash(bad)).toBe(false);
      const started = performance.now();
      expect(await verifyPassword('bounds', bad)).toBe(false);
      // ln=21 alone would take seconds and 2 GiB; the margin is for a loaded machine.
      expect(performance.now() - started).toBeLessThan(100);
    }
    await expect(hashPassword('x', { ln: 9, r: 8, p: 1 })).rejects.toThrow(RangeError);
    await expect(hashPassword('x', { ln: 10, r: 8, p: 5 })).rejects.toThrow(RangeError);
  });

  // Issue 28 point 12: tokens and sessions are bound to passwordIdOf; only a new password may change it.
  it('gives every new hash a new passwordId, and keeps it when the same password is hashed again with other parameters', async () => {
    const weak = { ln: 10, r: 8, p: 1 } as const;
    const [a, b] = await Promise.all([hashPassword('same password', weak), hashPassword('same password', weak)]);
    expect(passwordIdOf(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(passwordIdOf(a)).not.toBe(passwordIdOf(b));
    const upgraded = await rehashPassword('same password', a, { ln: 11, r: 8, p: 1 });
    expect(upgraded.startsWith('$scrypt$ln=11,r=8,p=1$')).toBe(true);
    expect(upgraded).not.toBe(a);
    expect(passwordIdOf(upgraded)).toBe(passwordIdOf(a));
    expect(await verifyPassword('same password', upgraded)).toBe(true);
    expect(passwordIdOf('not a hash')).toBeUndefined();
    await expect(rehashPassword('x', 'not a hash')).rejects.toThrow(RangeError);
  });

  it('has a dummy hash with the default parameters that no password opens, costing a real verification', async () => {
    expect(DUMMY_HASH).toMatch(FORMAT);
    expect(isPasswordHash(DUMMY_HASH)).toBe(true);
    const started = performance.now();
    expect(await verifyAgainstDummy('anything')).toBe(false);
    expect(performance.now() - started).toBeGreaterThan(10);
    expect(await verifyPassword('', DUMMY_HASH)).toBe(false);
  });
});
