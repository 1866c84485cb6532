// Security layer (CLI): `petal user …`, which writes the security folder (users, logouts, and the
// tokens a new password or a removal ends); `petal token …` is in token-commands.ts.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigError } from '../config/config-error.js';
import { revokeTokens } from './api-tokens.js';
import { hashPassword, verifyPassword } from './password-hash.js';
import { packageRoot } from '../config/load-config.js';
import { loadSecurity } from '../config/security-config.js';
import { NAME_PATTERN, type SecurityConfig } from '../config/security-schema.js';
import { recordLogout } from './logouts-file.js';
import { addUser, removeUser, replacePasswordHash, setUserEnabled } from './users-file.js';

export const USER_USAGE = `Usage: petal user add NAME --role R [--role R2] [--group G] [--password-stdin] [--config petal.yaml]
  Adds NAME (or sets their roles and password) in <security folder>/users.yaml, with a scrypt hash.
       petal user passwd NAME [--password-stdin] [--config petal.yaml]
  Gives NAME a new password, keeping their roles.
  The password is read from a prompt (asked twice), or from standard input with --password-stdin.
  A new password ends the user's sessions and API tokens (user add with the current password keeps them).
       petal user logout|disable|enable|remove NAME [--config petal.yaml]
  logout ends every session of NAME now; disable blocks NAME (sessions, Basic, tokens) until enable;
  remove deletes NAME from users.yaml and their tokens from tokens.yaml.
  A running server sees the change within a second.
`;

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;
const MAX_STDIN_BYTES = 64 * 1024;

/** Where the identities live, as the server will see them. */
interface SecurityLocation {
  readonly configFile?: string;
  readonly security: SecurityConfig;
}

/**
 * Finds petal.yaml (--config, else PETAL_CONFIG, else ./petal.yaml if present) and loads its security
 * section with the folder it names (default `./security` beside petal.yaml, or in `cwd` without one).
 * Only `security:` is read: the rest of petal.yaml is the server's business.
 */
export function locateSecurity(configFlag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): SecurityLocation {
  const named = configFlag ?? (env.PETAL_CONFIG !== undefined && env.PETAL_CONFIG !== '' ? env.PETAL_CONFIG : undefined);
  let file: string | undefined;
  if (named !== undefined) {
    file = resolve(cwd, named);
    if (!existsSync(file)) throw new ConfigError(file, 'file not found');
  } else if (existsSync(resolve(cwd, 'petal.yaml'))) {
    file = resolve(cwd, 'petal.yaml');
  }
  let folderBase: string | undefined;
  if (file === undefined) {
    // As `petal serve` without petal.yaml: the bundled demo's roles, users kept in ./security here.
    const demo = join(packageRoot(), 'demo', 'petal.yaml');
    if (!existsSync(demo)) return { security: loadSecurity(undefined, cwd) };
    file = demo;
    folderBase = cwd;
  }
  const lines = new LineCounter();
  const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new ConfigError(file, e.message.split('\n')[0]!, lines.linePos(e.pos[0]).line);
  }
  const data: unknown = doc.toJS();
  const raw = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>).security : undefined;
  return { configFile: file, security: loadSecurity(raw, folderBase ?? dirname(file), file) };
}

/** Creates the security folder readable by its owner only (it holds password and token hashes). */
export function ensureFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
}

/** A refusal of the command itself (not of a config file): printed as `petal: <message>`, exit 1. */
export class CommandError extends Error {}

/** Runs a command body, turning a CommandError into its message and exit code 1. */
export async function reporting(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (!(err instanceof CommandError)) throw err;
    process.stderr.write(`petal: ${err.message}\n`);
    return 1;
  }
}

export function usageError(message: string, usage: string): number {
  process.stderr.write(`petal: ${message}\n\n${usage}`);
  return 2;
}

const USER_STATE_COMMANDS: ReadonlySet<string> = new Set(['logout', 'disable', 'enable', 'remove']);

/** `petal user add|passwd|logout|disable|enable|remove …` */
export function userCommand(args: readonly string[]): Promise<number> {
  const sub = args.find((a) => !a.startsWith('-'));
  if (sub === 'passwd') return reporting(() => userPasswd(args));
  return reporting(() => (sub !== undefined && USER_STATE_COMMANDS.has(sub) ? userState(args) : userAdd(args)));
}

/**
 * After a new password: the user's sessions end (logouts.yaml) and their API tokens are deleted from
 * tokens.yaml. The server refuses both already (they are bound to the old password's id); this also
 * ends tokens made before that binding, and frees their names. Returns how many tokens went.
 */
function endCredentials(security: SecurityConfig, name: string): number {
  recordLogout(security.logoutsFile, name);
  return revokeTokens(security.tokensFile, (r) => r.user === name).length;
}

const revoked = (n: number) => `${n} API token${n === 1 ? '' : 's'}`;

/**
 * `petal user logout|disable|enable|remove NAME`: sessions live in the server's memory, so a logout
 * is recorded in <folder>/logouts.yaml, which the server watches. Disable and remove record one too,
 * so a session unused while the user was disabled cannot come back with `enable`.
 */
async function userState(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args], options: { config: { type: 'string' }, help: { type: 'boolean' } }, allowPositionals: true,
  });
  if (values.help) { process.stdout.write(USER_USAGE); return 0; }
  const [sub, name, ...extra] = positionals as [string, string | undefined, ...string[]];
  if (name === undefined || extra.length > 0) return usageError(`petal user ${sub}: name exactly one user`, USER_USAGE);
  if (name === '__proto__' || !NAME_PATTERN.test(name)) return usageError(`invalid user name ${JSON.stringify(name)}: use 1-64 letters, digits or . _ @ -`, USER_USAGE);
  const { configFile, security } = locateSecurity(values.config);
  const owner = security.definedIn.users.get(name);
  if (owner === undefined) throw new CommandError(`user ${name} is not defined in ${configFile ?? 'no petal.yaml'} or ${security.folder}`);
  if (sub !== 'logout' && owner !== security.usersFile) {
    throw new ConfigError(owner, `user ${name} is defined here; change it in this file (petal user ${sub} only edits ${security.usersFile})`);
  }
  ensureFolder(security.folder);
  // The logout first: if the second write fails, the sessions are ended all the same.
  if (sub !== 'enable') recordLogout(security.logoutsFile, name);
  if (sub === 'disable') setUserEnabled(security.usersFile, name, false);
  if (sub === 'enable') setUserEnabled(security.usersFile, name, true);
  // A removed user's tokens go too: a user added later under the same name must not inherit them.
  const gone = sub === 'remove' ? revokeTokens(security.tokensFile, (r) => r.user === name).length : 0;
  if (sub === 'remove') removeUser(security.usersFile, name);
  const done = { logout: 'ended the sessions of', disable: 'disabled', enable: 'enabled', remove: 'removed' }[sub as 'logout'];
  process.stdout.write(`${done} user ${name}${sub === 'logout' ? '' : ` in ${security.usersFile}`}${sub === 'remove' ? ` (revoked ${revoked(gone)})` : ''}\n`);
  return 0;
}

async function userAdd(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      role: { type: 'string', multiple: true }, group: { type: 'string', multiple: true },
      'password-stdin': { type: 'boolean' }, config: { type: 'string' }, help: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(USER_USAGE); return 0; }
  const [sub, name, ...extra] = positionals;
  if (sub !== 'add') return usageError(sub === undefined ? 'petal user: missing sub-command' : `petal user: unknown sub-command ${JSON.stringify(sub)}`, USER_USAGE);
  if (name === undefined || extra.length > 0) return usageError('petal user add: name exactly one user', USER_USAGE);
  if (name === '__proto__' || !NAME_PATTERN.test(name)) return usageError(`invalid user name ${JSON.stringify(name)}: use 1-64 letters, digits or . _ @ -`, USER_USAGE);
  const roles = [...new Set(values.role ?? [])];
  const groups = values.group !== undefined ? [...new Set(values.group)] : undefined;
  if (roles.length === 0 && (groups ?? []).length === 0) return usageError('petal user add: give at least one --role (or --group)', USER_USAGE);

  const { configFile, security } = locateSecurity(values.config);
  const where = `${configFile ?? 'no petal.yaml'} or ${security.folder}`;
  // Checked now rather than at the next server start, where a typo would stop the whole server.
  for (const r of roles) {
    if (!security.roles.has(r)) throw new CommandError(`role ${r} is not defined in ${where} (known: ${[...security.roles.keys()].sort().join(', ')})`);
  }
  for (const g of groups ?? []) {
    if (!security.groups.has(g)) throw new CommandError(`group ${g} is not defined in ${where}${security.groups.size > 0 ? ` (known: ${[...security.groups.keys()].sort().join(', ')})` : ''}`);
  }
  const owner = security.definedIn.users.get(name);
  if (owner !== undefined && owner !== security.usersFile) {
    throw new ConfigError(owner, `user ${name} is defined here; change it in this file (petal user add only edits ${security.usersFile})`);
  }

  const password = values['password-stdin'] ? await readPasswordFromStdin() : await promptPasswordTwice();
  const problem = passwordProblem(password);
  if (problem !== undefined) throw new CommandError(problem);

  ensureFolder(security.folder);
  // Run again to change roles with the same password, user add keeps the hash, so sessions and tokens stay.
  const current = owner !== undefined ? security.users.get(name)?.passwordHash : undefined;
  const same = current !== undefined && await verifyPassword(password, current);
  const outcome = addUser(security.usersFile, {
    name, passwordHash: same ? current : await hashPassword(password), roles, ...(groups !== undefined ? { groups } : {}),
  });
  const ended = outcome === 'updated' && !same ? endCredentials(security, name) : undefined;
  process.stdout.write(`${outcome} user ${name} (roles: ${roles.join(', ') || 'none'}${groups !== undefined && groups.length > 0 ? `; groups: ${groups.join(', ')}` : ''}) in ${security.usersFile}`
    + `${same ? '; password unchanged' : ended !== undefined ? `; new password: ended their sessions and revoked ${revoked(ended)}` : ''}\n`);
  return 0;
}

/** `petal user passwd NAME`: a new password for a user of users.yaml, roles and groups kept. */
async function userPasswd(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { 'password-stdin': { type: 'boolean' }, config: { type: 'string' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(USER_USAGE); return 0; }
  const [, name, ...extra] = positionals;
  if (name === undefined || extra.length > 0) return usageError('petal user passwd: name exactly one user', USER_USAGE);
  if (name === '__proto__' || !NAME_PATTERN.test(name)) return usageError(`invalid user name ${JSON.stringify(name)}: use 1-64 letters, digits or . _ @ -`, USER_USAGE);
  const { configFile, security } = locateSecurity(values.config);
  const owner = security.definedIn.users.get(name);
  if (owner === undefined) throw new CommandError(`user ${name} is not defined in ${configFile ?? 'no petal.yaml'} or ${security.folder} (add it with petal user add)`);
  if (owner !== security.usersFile) {
    throw new ConfigError(owner, `user ${name} is defined here; change it in this file (petal user passwd only edits ${security.usersFile})`);
  }
  const current = security.users.get(name)!.passwordHash;
  const password = values['password-stdin'] ? await readPasswordFromStdin() : await promptPasswordTwice();
  const problem = passwordProblem(password);
  if (problem !== undefined) throw new CommandError(problem);
  // Someone changing a leaked password who types the old one again would otherwise keep it unawares.
  if (await verifyPassword(password, current)) throw new CommandError(`that is the current password of ${name}: choose a new one`);
  if (!replacePasswordHash(security.usersFile, name, current, await hashPassword(password))) {
    throw new CommandError(`the password of ${name} changed in ${security.usersFile} while this command ran: run it again`);
  }
  const ended = endCredentials(security, name);
  process.stdout.write(`new password for user ${name} in ${security.usersFile}: ended their sessions and revoked ${revoked(ended)}\n`);
  return 0;
}

function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length === 0) return 'the password is empty';
  if (length < MIN_PASSWORD) return `the password is too short: use at least ${MIN_PASSWORD} characters`;
  if (length > MAX_PASSWORD) return `the password is too long: use at most ${MAX_PASSWORD} characters`;
  return undefined;
}

/** All of stdin, minus one trailing line break (`echo pw | petal …` appends one). */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_STDIN_BYTES) throw new CommandError('standard input is too long for a password');
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function promptPasswordTwice(): Promise<string> {
  if (!process.stdin.isTTY) throw new CommandError('no terminal to ask for the password: pipe it in with --password-stdin');
  const first = await promptHidden('Password: ');
  const problem = passwordProblem(first);
  if (problem !== undefined) return first; // reported by the caller; no point asking again
  const second = await promptHidden('Repeat password: ');
  if (first !== second) throw new CommandError('the two passwords differ');
  return first;
}

/** Reads one line from the terminal without echoing it; the prompt goes to stderr. */
function promptHidden(question: string): Promise<string> {
  process.stderr.write(question);
  // readline echoes what it reads to its output: give it one that swallows everything.
  const silent = new Writable({ write(_chunk, _encoding, done) { done(); } });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: true });
  return new Promise<string>((resolvePromise, reject) => {
    let answered = false;
    rl.on('SIGINT', () => { rl.close(); });
    rl.once('close', () => {
      process.stderr.write('\n');
      if (!answered) reject(new CommandError('cancelled'));
    });
    rl.question('', (answer) => {
      answered = true;
      rl.close();
      resolvePromise(answer);
    });
  });
}
