// Security layer: memory-hard password hashes (scrypt from node:crypto, no dependency) in a self-describing string.
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { parsePasswordHash, scryptParamsInBounds, type ScryptParams } from '../config/password-hash-format.js';

/** ln=17, r=8, p=1: 128 MiB and a few hundred ms per hash, OWASP's current minimum for scrypt. */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { ln: 17, r: 8, p: 1 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;

// NFC so that the same password typed on systems that compose accents differently still matches.
function normalize(password: string): string {
  return password.normalize('NFC');
}

function derive(password: string, salt: Buffer, keyLength: number, { ln, r, p }: ScryptParams): Promise<Buffer> {
  const N = 2 ** ln;
  // OpenSSL needs 128·r·(N + p + 2) bytes; Node's default cap (32 MiB) is below ln=15, r=8.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * r * (N + p + 2) + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(normalize(password), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A new hash with a random 16-byte salt and a 32-byte key. `params` exists for tests and tuning. */
export function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  return hashWithSalt(password, randomBytes(SALT_BYTES), params);
}

/**
 * The same password hashed again with today's parameters and the salt of `encoded` (the hash it
 * verified against), so its passwordId stays: upgrading a hash is not a password change.
 */
export async function rehashPassword(password: string, encoded: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  const parsed = parsePasswordHash(encoded);
  if (!parsed) throw new RangeError('not a $scrypt$ hash');
  return hashWithSalt(password, parsed.salt, params);
}

async function hashWithSalt(password: string, salt: Buffer, params: ScryptParams): Promise<string> {
  const { ln, r, p } = params;
  if (!scryptParamsInBounds(params)) {
    throw new RangeError(`scrypt parameters out of bounds: ln=${ln}, r=${r}, p=${p}`);
  }
  const key = await derive(password, salt, KEY_BYTES, params);
  return `$scrypt$ln=${ln},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Which password a hash stands for, as 16 hex digits: a digest of its random salt. Every new password
 * gets a new salt (petal user add, or any tool that makes a hash to paste into users.yaml), while
 * rehashPassword keeps it. API tokens and sessions are bound to it: they end when it changes.
 * Undefined for a string that is not a hash.
 */
export function passwordIdOf(encoded: string): string | undefined {
  const parsed = parsePasswordHash(encoded);
  return parsed && createHash('sha256').update('petal password id\0').update(parsed.salt).digest('hex').slice(0, 16);
}

/**
 * True when a stored hash was made with weaker parameters than today's defaults, so that the next
 * successful login should replace it (stronger or equal ones are kept: an operator may have raised them).
 */
export function needsRehash(encoded: string, target: ScryptParams = DEFAULT_SCRYPT_PARAMS): boolean {
  const parsed = parsePasswordHash(encoded);
  if (!parsed) return false;
  const { ln, r, p } = parsed.params;
  return ln < target.ln || (ln === target.ln && r < target.r) || parsed.key.length < KEY_BYTES;
}

/** True when `password` matches `encoded`; false for a wrong password or a malformed/out-of-bounds string. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parsePasswordHash(encoded);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.key.length, parsed.params);
  return timingSafeEqual(key, parsed.key);
}

/**
 * A valid hash (default parameters) of a random password nobody knows: verifying against it costs
 * exactly what verifying a real user costs, so unknown user names cannot be told apart by timing.
 */
export const DUMMY_HASH = '$scrypt$ln=17,r=8,p=1$uPTE5sAVhM1eRf1hi6VteQ==$mZT+4bbZF/SJT1PLrCdRqqzGHVpltdgY6+b5RvNRUFQ=';

/** Spends one default-cost verification and always answers false (for unknown or unusable accounts). */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, DUMMY_HASH);
  return false;
}
