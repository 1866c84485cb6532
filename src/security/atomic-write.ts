// Security layer (files): replaces a file atomically with owner-only permissions, for files holding secrets.
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to a hidden temporary file beside `file` (mode 0600, flushed) and renames it over
 * `file`: readers (the server reloading) see the old or the new content, never half of it, and the
 * hash material is never readable by other users, not even for a moment.
 */
export function writeFileAtomic(file: string, text: string, mode = 0o600): void {
  // Leading dot: the security folder loader skips hidden files, so a leftover temp file is inert.
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    fchmodSync(fd, mode); // the umask may have removed bits we asked for; never adds any
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
