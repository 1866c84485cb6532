// Security layer: API tokens for `Authorization: Bearer`, stored only as SHA-256 hashes in tokens.yaml.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { LineCounter, parseDocument, stringify } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config/config-error.js';
import { writeFileAtomic } from './atomic-write.js';
import { NAME_PATTERN } from '../config/security-schema.js';

export const TOKEN_PREFIX = 'ptl_';
// 32 random bytes in base64url without padding: 43 characters. The prefix lets secret scanners find leaks.
const TOKEN_SHAPE = /^ptl_[A-Za-z0-9_-]{43}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TokenRecord {
  /** A label, unique in the file, to recognise and revoke the token. */
  readonly name: string;
  /** The user the token acts as: its roles are that user's roles at the time of each request. */
  readonly user: string;
  /** Lower-case hex SHA-256 of the whole token (prefix included). */
  readonly sha256: string;
  /** ISO-8601 creation time. */
  readonly created: string;
  /** ISO-8601 expiry; absent = never expires. */
  readonly expires?: string;
  /**
   * passwordIdOf the user's hash when the token was created: the token ends when the user gets a new
   * password (by the CLI or by editing users.yaml). Absent in tokens made before tokens were bound.
   */
  readonly passwordId?: string;
}

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO-8601 date-time');

const recordSchema = z.strictObject({
  name: z.string().regex(NAME_PATTERN, 'expected 1-64 letters, digits or . _ @ -'),
  user: z.string().regex(NAME_PATTERN, 'expected a user name'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits'),
  created: isoDate,
  expires: isoDate.optional(),
  passwordId: z.string().regex(/^[0-9a-f]{16}$/, 'expected 16 lower-case hex digits').optional(),
});

const fileSchema = z.strictObject({ tokens: z.array(recordSchema).default([]) });

/** Lower-case hex SHA-256 of a token. A fast hash suffices: tokens carry 256 random bits, unlike passwords. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * A new token (shown once to the operator) and the record to store (which cannot give the token back).
 * `passwordId` is passwordIdOf the user's current hash.
 */
export function createToken(
  options: { readonly user: string; readonly name: string; readonly passwordId: string; readonly expiresInDays?: number },
  now: Date = new Date(),
): { token: string; record: TokenRecord } {
  if (!NAME_PATTERN.test(options.name)) throw new RangeError(`invalid token name ${JSON.stringify(options.name)}: expected 1-64 letters, digits or . _ @ -`);
  if (!NAME_PATTERN.test(options.user)) throw new RangeError(`invalid user name ${JSON.stringify(options.user)}`);
  if (!/^[0-9a-f]{16}$/.test(options.passwordId)) throw new RangeError('passwordId: expected 16 lower-case hex digits');
  const days = options.expiresInDays;
  if (days !== undefined && (!Number.isFinite(days) || days <= 0)) throw new RangeError(`expiresInDays must be a positive number, got ${days}`);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const record: TokenRecord = {
    name: options.name,
    user: options.user,
    sha256: hashToken(token),
    created: now.toISOString(),
    ...(days !== undefined ? { expires: new Date(now.getTime() + days * DAY_MS).toISOString() } : {}),
    passwordId: options.passwordId,
  };
  return { token, record };
}

/** The user a presented token acts as, or undefined (malformed, unknown or expired); see findToken. */
export function verifyToken(token: string, records: readonly TokenRecord[], now: Date = new Date()): string | undefined {
  return findToken(token, records, now)?.user;
}

/**
 * The record of a presented token, or undefined (malformed, unknown or expired). Every record is
 * compared with timingSafeEqual and the loop never stops early, so timing does not reveal a near match.
 * Whether the record is still bound to its user's password is the caller's check (tokenPasswordCurrent).
 */
export function findToken(token: string, records: readonly TokenRecord[], now: Date = new Date()): TokenRecord | undefined {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const presented = Buffer.from(hashToken(token), 'hex');
  let match: TokenRecord | undefined;
  for (const record of records) {
    const stored = Buffer.from(record.sha256, 'hex');
    if (stored.length === presented.length && timingSafeEqual(stored, presented)) match = record;
  }
  if (match === undefined) return undefined;
  if (match.expires !== undefined && Date.parse(match.expires) <= now.getTime()) return undefined;
  return match;
}

/**
 * Whether a token still belongs to its user's password: true when its passwordId is the current one;
 * false after a new password; true for an unbound record of an older version (the server warns of those).
 */
export function tokenPasswordCurrent(record: TokenRecord, currentPasswordId: string | undefined): boolean {
  return record.passwordId === undefined || record.passwordId === currentPasswordId;
}

/** The records of a tokens file; a missing file holds none. Invalid content is a ConfigError with the line. */
export function readTokens(file: string): TokenRecord[] {
  if (!existsSync(file)) return [];
  const lines = new LineCounter();
  const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new ConfigError(file, e.message.split('\n')[0]!, lines.linePos(e.pos[0]).line);
  }
  const parsed = fileSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String);
    const node = path.length > 0 ? (doc.getIn(path, true) as { range?: [number, number, number] } | undefined) : undefined;
    const line = node?.range ? lines.linePos(node.range[0]).line : undefined;
    throw new ConfigError(file, `${path.length > 0 ? `${path.join('.')}: ` : ''}${issue.message}`, line);
  }
  const names = new Set<string>();
  for (const r of parsed.data.tokens) {
    if (names.has(r.name)) throw new ConfigError(file, `token name ${r.name} is used twice`);
    names.add(r.name);
  }
  return parsed.data.tokens;
}

/** Replaces the tokens file atomically, readable by its owner only. */
export function writeTokens(file: string, records: readonly TokenRecord[]): void {
  const header = '# API tokens of Petal, created with `petal token create`. Only SHA-256 hashes are stored:\n'
    + '# a lost token cannot be recovered, only replaced. `petal token revoke` (or deleting an entry) revokes\n'
    + '# a token; a new password of its user ends it too (passwordId no longer matches).\n';
  const body = stringify({ tokens: records.map((r) => ({ ...r })) });
  writeFileAtomic(file, header + body);
}

/**
 * Removes the records `revoke` selects from the tokens file (rewritten only if one matched) and returns
 * them. A missing file holds none.
 */
export function revokeTokens(file: string, revoke: (record: TokenRecord) => boolean): TokenRecord[] {
  const records = readTokens(file);
  const gone = records.filter(revoke);
  if (gone.length > 0) writeTokens(file, records.filter((r) => !revoke(r)));
  return gone;
}
