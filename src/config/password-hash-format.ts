// Config layer: the format of a stored password hash (`$scrypt$ln=…,r=…,p=…$<salt>$<hash>`) and the
// bounds of its parameters, pure, so that configuration can check a hash without hashing anything
// (hashing and verifying stay in security/password-hash.ts).

/** Cost parameters: N = 2^ln, block size r, parallelism p. */
export interface ScryptParams {
  readonly ln: number;
  readonly r: number;
  readonly p: number;
}

// Bounds for parameters read back from a stored hash: below them the hash is too weak to trust,
// above them one verification could pin gigabytes or minutes of CPU.
const LN_MIN = 10, LN_MAX = 20, R_MIN = 1, R_MAX = 16, P_MIN = 1, P_MAX = 4;
// Lengths accepted when reading: other tools may choose other salt and key sizes, within reason.
// A key shorter than 32 bytes is refused: scrypt output is prefix-stable, so a truncated hash would still verify.
const MIN_SALT = 16, MAX_SALT = 64, MIN_KEY = 32, MAX_KEY = 64;

const B64 = /^[A-Za-z0-9+/]+={0,2}$/;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d)\$([^$]+)\$([^$]+)$/;

export interface ParsedHash {
  readonly params: ScryptParams;
  readonly salt: Buffer;
  readonly key: Buffer;
}

/** True when the parameters are within the bounds a stored hash may have. */
export function scryptParamsInBounds({ ln, r, p }: ScryptParams): boolean {
  return !(ln < LN_MIN || ln > LN_MAX || r < R_MIN || r > R_MAX || p < P_MIN || p > P_MAX);
}

/** Splits `$scrypt$ln=15,r=8,p=1$<salt>$<hash>`; undefined when malformed or out of bounds. */
export function parsePasswordHash(encoded: string): ParsedHash | undefined {
  const m = FORMAT.exec(encoded);
  if (!m) return undefined;
  const ln = Number(m[1]), r = Number(m[2]), p = Number(m[3]);
  if (!scryptParamsInBounds({ ln, r, p })) return undefined;
  if (!B64.test(m[4]!) || !B64.test(m[5]!)) return undefined;
  const salt = Buffer.from(m[4]!, 'base64');
  const key = Buffer.from(m[5]!, 'base64');
  if (salt.length < MIN_SALT || salt.length > MAX_SALT || key.length < MIN_KEY || key.length > MAX_KEY) return undefined;
  return { params: { ln, r, p }, salt, key };
}

/** True when `encoded` is a hash Petal can verify (used to validate config at load time). */
export function isPasswordHash(encoded: string): boolean {
  return parsePasswordHash(encoded) !== undefined;
}
