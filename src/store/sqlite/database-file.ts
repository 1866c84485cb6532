// SQLite backend: the database file is private to its owner (it holds customers' addresses and
// e-mails), created so and narrowed when found readable by others.
import { chmodSync, closeSync, openSync, statSync } from 'node:fs';

/** The database holds customers' addresses and e-mails: readable by its owner only. */
const DATABASE_FILE_MODE = 0o600;

/**
 * Creates the database file 0600 before SQLite opens it (SQLite gives its -wal and -shm files the
 * database file's mode), and narrows an existing one, with its -wal and -shm, that others can read.
 */
export function privateDatabaseFile(file: string, onNotice: ((message: string) => void) | undefined): void {
  closeSync(openSync(file, 'a', DATABASE_FILE_MODE));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    let mode: number;
    try {
      mode = statSync(f).mode & 0o777;
    } catch {
      continue; // no -wal or -shm yet
    }
    if ((mode & 0o077) === 0) continue;
    chmodSync(f, DATABASE_FILE_MODE);
    onNotice?.(`database file ${f}: narrowed from mode ${mode.toString(8)} to 600 (it holds customers' data)`);
  }
}
