// Security layer (files): adds or updates one user in a YAML users file, keeping the rest of the file as written.
import { existsSync, readFileSync } from 'node:fs';
import { Document, isMap, LineCounter, parseDocument, type YAMLMap } from 'yaml';
import { ConfigError } from '../config/config-error.js';
import { writeFileAtomic } from './atomic-write.js';
import { isPasswordHash } from '../config/password-hash-format.js';
import { NAME_PATTERN } from '../config/security-schema.js';

export interface NewUser {
  readonly name: string;
  readonly passwordHash: string;
  readonly roles: readonly string[];
  /** Omitted: a new user gets none, an existing user keeps theirs. */
  readonly groups?: readonly string[];
}

const HEADER = ' Users of Petal, written by `petal user add`. Passwords are stored only as scrypt hashes.\n'
  + ' Fields: passwordHash, roles, groups, enabled (false blocks logins, sessions and tokens at once).';

/**
 * Writes `users.<name>` into `file` (created if missing): a new entry, or a new password hash and roles
 * for an existing one (its other keys, such as `enabled`, stay). Other entries and comments are kept.
 * Returns whether the user was added or updated. The file is replaced atomically with mode 0600.
 */
export function addUser(file: string, user: NewUser): 'added' | 'updated' {
  // The name becomes a YAML key and later a login name: refuse anything a shell or YAML could misread.
  if (user.name === '__proto__' || !NAME_PATTERN.test(user.name)) {
    throw new RangeError(`invalid user name ${JSON.stringify(user.name)}: expected 1-64 letters, digits or . _ @ -`);
  }
  for (const n of [...user.roles, ...(user.groups ?? [])]) {
    if (!NAME_PATTERN.test(n)) throw new RangeError(`invalid role or group name ${JSON.stringify(n)}`);
  }
  if (!isPasswordHash(user.passwordHash)) throw new RangeError('passwordHash is not a $scrypt$ hash');

  const doc = existsSync(file) ? readDocument(file) : newDocument();
  if (doc.contents === null) doc.contents = doc.createNode({}) as YAMLMap;
  if (!isMap(doc.contents)) throw new ConfigError(file, 'expected a mapping with a users: key');
  const users = doc.get('users', true);
  if (users === undefined || users === null) doc.set('users', doc.createNode({}));
  else if (!isMap(users)) throw new ConfigError(file, 'users: expected a mapping of user names');
  // `users: {}` would otherwise grow into one long flow mapping; entries read better as blocks.
  else if (users.items.length === 0) users.flow = false;

  const existing = doc.getIn(['users', user.name], true);
  if (existing !== undefined && existing !== null && !isMap(existing)) throw new ConfigError(file, `users.${user.name}: expected a mapping`);
  const outcome = existing !== undefined && existing !== null ? 'updated' : 'added';
  // Name lists in flow style (`roles: [editor]`): one user stays a few lines however many roles it has.
  const list = (names: readonly string[]) => doc.createNode([...names], { flow: true });
  if (outcome === 'added') {
    doc.setIn(['users', user.name], doc.createNode({
      passwordHash: user.passwordHash,
      roles: list(user.roles),
      groups: list(user.groups ?? []),
      enabled: true,
    }));
  } else {
    doc.setIn(['users', user.name, 'passwordHash'], user.passwordHash);
    doc.setIn(['users', user.name, 'roles'], list(user.roles));
    if (user.groups !== undefined) doc.setIn(['users', user.name, 'groups'], list(user.groups));
  }
  writeFileAtomic(file, doc.toString());
  return outcome;
}

function newDocument(): Document {
  const doc = new Document({});
  doc.commentBefore = HEADER;
  return doc;
}

function readDocument(file: string): Document {
  const lines = new LineCounter();
  const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new ConfigError(file, e.message.split('\n')[0]!, lines.linePos(e.pos[0]).line);
  }
  return doc;
}

/** The user's entry of `file` as a YAML map, or a ConfigError when the file does not define it. */
function userEntry(doc: Document, file: string, name: string): YAMLMap {
  const entry = doc.getIn(['users', name], true);
  if (entry === undefined || entry === null) throw new ConfigError(file, `user ${name} is not defined in this file`);
  if (!isMap(entry)) throw new ConfigError(file, `users.${name}: expected a mapping`);
  return entry;
}

/** Sets `users.<name>.enabled` in `file` (other keys and entries kept). */
export function setUserEnabled(file: string, name: string, enabled: boolean): void {
  const doc = readDocument(file);
  userEntry(doc, file, name).set('enabled', enabled);
  writeFileAtomic(file, doc.toString());
}

/** Removes `users.<name>` from `file`. */
export function removeUser(file: string, name: string): void {
  const doc = readDocument(file);
  userEntry(doc, file, name);
  doc.deleteIn(['users', name]);
  writeFileAtomic(file, doc.toString());
}

/**
 * Replaces the user's hash by `next` only if the file still holds `expected` (the password may have
 * been changed meanwhile, or another login rehashed first). Returns whether the file was written.
 */
export function replacePasswordHash(file: string, name: string, expected: string, next: string): boolean {
  if (!isPasswordHash(next)) throw new RangeError('passwordHash is not a $scrypt$ hash');
  if (!existsSync(file)) return false;
  const doc = readDocument(file);
  if (doc.getIn(['users', name, 'passwordHash']) !== expected) return false;
  doc.setIn(['users', name, 'passwordHash'], next);
  writeFileAtomic(file, doc.toString());
  return true;
}
