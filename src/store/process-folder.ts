// Temporary folders named after the process that made them (`<prefix><pid>-XXXXXX`): a process killed
// with -9 cannot remove its own, so the next one removes those whose process no longer runs.
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Folders of older versions carry no pid: one untouched this long belongs to no running process. */
const UNNAMED_STALE_MS = 24 * 60 * 60 * 1000;

/** Removes abandoned folders of `prefix` below `parent`, then creates this process's own. */
export async function createProcessFolder(prefix: string, parent: string = tmpdir()): Promise<string> {
  await sweepAbandonedFolders(prefix, parent);
  return mkdtemp(join(parent, `${prefix}${process.pid}-`));
}

/** Removes the folders of `prefix` (owned by this user) of processes that no longer run; returns their paths. */
export async function sweepAbandonedFolders(prefix: string, parent: string = tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const named = /^(\d+)-[A-Za-z0-9]{6}$/.exec(rest);
    if (!named && !/^[A-Za-z0-9]{6}$/.test(rest)) continue;
    const path = join(parent, name);
    const s = await lstat(path).catch(() => undefined);
    if (!s?.isDirectory() || (uid !== undefined && s.uid !== uid)) continue;
    const abandoned = named ? !isRunning(Number(named[1])) : Date.now() - s.mtimeMs > UNNAMED_STALE_MS;
    if (!abandoned) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
