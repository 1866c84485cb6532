// Security layer (files): `logouts.yaml` of the security folder: per user, the time before which their
// sessions are void. Sessions live in the server's memory; the server learns of `petal user logout`
// through the folder it already watches, so this file is the CLI's only way to reach them.
import { existsSync, readFileSync } from 'node:fs';
import { Document, isMap, parseDocument } from 'yaml';
import { ConfigError } from '../config/config-error.js';
import { writeFileAtomic } from './atomic-write.js';

const HEADER = ' Written by `petal user logout|disable|remove`: sessions of a user created at or before'
  + '\n the time given here are ended. Entries may be deleted once older than the session lifetime.';

/** Records that every session of `user` created at or before `at` is void. */
export function recordLogout(file: string, user: string, at: Date = new Date()): void {
  let doc: Document = parseDocument(existsSync(file) ? readFileSync(file, 'utf8') : '');
  if (doc.errors.length > 0) throw new ConfigError(file, doc.errors[0]!.message.split('\n')[0]!);
  if (doc.contents === null) {
    doc = new Document({ logouts: {} });
    doc.commentBefore = HEADER;
  }
  const logouts = doc.get('logouts', true);
  if (logouts !== undefined && logouts !== null && !isMap(logouts)) throw new ConfigError(file, 'logouts: expected a mapping of user names');
  if (isMap(logouts) && logouts.items.length === 0) logouts.flow = false;
  doc.setIn(['logouts', user], at.toISOString());
  writeFileAtomic(file, doc.toString());
}
