// Security layer (CLI): `petal token create|list|revoke`, which write <security folder>/tokens.yaml.
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/config-error.js';
import { createToken, readTokens, revokeTokens, writeTokens, type TokenRecord } from './api-tokens.js';
import { CommandError, ensureFolder, locateSecurity, reporting, usageError } from './cli-commands.js';
import { passwordIdOf } from './password-hash.js';
import { NAME_PATTERN, type SecurityConfig } from '../config/security-schema.js';

export const TOKEN_USAGE = `Usage: petal token create NAME --user U [--expires-days N] [--config petal.yaml]
  Creates an API token acting as user U (send it as "Authorization: Bearer <token>") and prints it once.
  Only its SHA-256 hash is kept, in <security folder>/tokens.yaml. It ends when it expires, when it
  is revoked, or when U gets a new password; it is refused while U is disabled.
       petal token list [--user U] [--config petal.yaml]
  Lists the tokens (of U): name, user, created, expires, and whether each still works.
       petal token revoke NAME | --user U [--config petal.yaml]
  Revokes one token, or every token of U (and says how many). A running server sees it within a second.
`;

const MAX_EXPIRY_DAYS = 36500;

/** `petal token create|list|revoke …` */
export function tokenCommand(args: readonly string[]): Promise<number> {
  const sub = args.find((a) => !a.startsWith('-'));
  if (sub === 'list') return reporting(() => tokenList(args));
  if (sub === 'revoke') return reporting(() => tokenRevoke(args));
  return reporting(() => tokenCreate(args));
}

async function tokenCreate(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { user: { type: 'string' }, 'expires-days': { type: 'string' }, config: { type: 'string' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(TOKEN_USAGE); return 0; }
  const [sub, name, ...extra] = positionals;
  if (sub !== 'create') return usageError(sub === undefined ? 'petal token: missing sub-command' : `petal token: unknown sub-command ${JSON.stringify(sub)}`, TOKEN_USAGE);
  if (name === undefined || extra.length > 0) return usageError('petal token create: name exactly one token', TOKEN_USAGE);
  if (!NAME_PATTERN.test(name)) return usageError(`invalid token name ${JSON.stringify(name)}: use 1-64 letters, digits or . _ @ -`, TOKEN_USAGE);
  const user = values.user;
  if (user === undefined) return usageError('petal token create: --user is required', TOKEN_USAGE);
  let expiresInDays: number | undefined;
  if (values['expires-days'] !== undefined) {
    const text = values['expires-days'];
    expiresInDays = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > MAX_EXPIRY_DAYS) {
      return usageError(`--expires-days must be a whole number of days from 1 to ${MAX_EXPIRY_DAYS}, not ${JSON.stringify(text)}`, TOKEN_USAGE);
    }
  }

  const { configFile, security } = locateSecurity(values.config);
  const account = security.users.get(user);
  // A token for a missing or disabled user would be refused on every request: say so now.
  if (account === undefined) throw new CommandError(`user ${user} is not defined in ${configFile ?? 'no petal.yaml'} or ${security.folder} (add it with petal user add)`);
  if (!account.enabled) throw new ConfigError(security.definedIn.users.get(user), `user ${user} is disabled`);

  ensureFolder(security.folder);
  const records = readTokens(security.tokensFile);
  if (records.some((r) => r.name === name)) throw new ConfigError(security.tokensFile, `a token named ${name} exists already (petal token revoke ${name} revokes it)`);
  // The hash was validated when the configuration was loaded, so it has an id.
  const passwordId = passwordIdOf(account.passwordHash)!;
  const { token, record } = createToken({ user, name, passwordId, ...(expiresInDays !== undefined ? { expiresInDays } : {}) });
  writeTokens(security.tokensFile, [...records, record]);
  // The token alone on stdout, so that TOKEN=$(petal token create …) works; the note goes to stderr.
  process.stdout.write(`${token}\n`);
  process.stderr.write(
    `token ${name} for user ${user} created${record.expires !== undefined ? `, expires ${record.expires}` : ', never expires'}.\n`
    + `Copy it now: it is not stored in clear (only its SHA-256 hash is kept, in ${security.tokensFile}).\n`,
  );
  return 0;
}

/** `--user U` checked as a user name; undefined when absent. */
function userFlag(value: string | undefined): string | undefined {
  if (value !== undefined && !NAME_PATTERN.test(value)) throw new CommandError(`invalid user name ${JSON.stringify(value)}: use 1-64 letters, digits or . _ @ -`);
  return value;
}

/** Whether a token works today, and if not, why (the server's checks, in words). */
export function tokenState(record: TokenRecord, security: SecurityConfig, now: Date = new Date()): string {
  const account = security.users.get(record.user);
  if (account === undefined) return 'refused: no such user';
  if (record.passwordId !== undefined && record.passwordId !== passwordIdOf(account.passwordHash)) return 'ended: the user has a new password';
  if (record.expires !== undefined && Date.parse(record.expires) <= now.getTime()) return 'ended: expired';
  if (!account.enabled) return 'refused while the user is disabled';
  return record.passwordId === undefined ? 'active (made before tokens were bound to a password: re-create it)' : 'active';
}

async function tokenList(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args], options: { user: { type: 'string' }, config: { type: 'string' }, help: { type: 'boolean' } }, allowPositionals: true,
  });
  if (values.help) { process.stdout.write(TOKEN_USAGE); return 0; }
  if (positionals.length > 1) return usageError('petal token list: no names, filter with --user U', TOKEN_USAGE);
  const user = userFlag(values.user);
  const { security } = locateSecurity(values.config);
  const records = readTokens(security.tokensFile).filter((r) => user === undefined || r.user === user);
  if (records.length === 0) {
    process.stdout.write(`no tokens${user !== undefined ? ` of user ${user}` : ''} in ${security.tokensFile}\n`);
    return 0;
  }
  const rows = [['NAME', 'USER', 'CREATED', 'EXPIRES', 'STATE'],
    ...records.map((r) => [r.name, r.user, r.created, r.expires ?? 'never', tokenState(r, security)])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) process.stdout.write(`${row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join('  ')}\n`);
  return 0;
}

async function tokenRevoke(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args], options: { user: { type: 'string' }, config: { type: 'string' }, help: { type: 'boolean' } }, allowPositionals: true,
  });
  if (values.help) { process.stdout.write(TOKEN_USAGE); return 0; }
  const [, name, ...extra] = positionals;
  const user = userFlag(values.user);
  if (extra.length > 0 || (name === undefined) === (user === undefined)) {
    return usageError('petal token revoke: name one token, or give --user U for all of its tokens', TOKEN_USAGE);
  }
  const { security } = locateSecurity(values.config);
  if (user !== undefined) {
    // The user need not exist any more: tokens of a removed user are revoked all the same.
    const n = revokeTokens(security.tokensFile, (r) => r.user === user).length;
    process.stdout.write(`revoked ${n} API token${n === 1 ? '' : 's'} of user ${user} in ${security.tokensFile}\n`);
    return 0;
  }
  const gone = revokeTokens(security.tokensFile, (r) => r.name === name);
  if (gone.length === 0) throw new CommandError(`no token named ${name} in ${security.tokensFile} (petal token list shows them)`);
  process.stdout.write(`revoked token ${name} of user ${gone[0]!.user} in ${security.tokensFile}\n`);
  return 0;
}
