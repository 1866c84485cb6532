// Ingest layer: the temporary folder an import decodes binaries into. A killed import cannot remove
// its own, so each is named after its process (`petal-import-<pid>-XXXXXX`) and the next import sweeps
// away those of processes that no longer run.
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'petal-import-';
const NAMED = /^petal-import-(\d+)-[A-Za-z0-9]{6}$/;
/** Folders of older versions carry no pid: one untouched this long belongs to no running import. */
const UNNAMED_STALE_MS = 24 * 60 * 60 * 1000;

/** Removes abandoned spool folders below `parent`, then creates this process's own. */
export async function createSpoolFolder(parent: string = tmpdir()): Promise<string> {
  await sweepAbandonedSpoolFolders(parent);
  return mkdtemp(join(parent, `${PREFIX}${process.pid}-`));
}

/** Removes the spool folders (owned by this user) of dead processes; returns their paths. */
export async function sweepAbandonedSpoolFolders(parent: string = tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const path = join(parent, name);
    const s = await lstat(path).catch(() => undefined);
    if (!s?.isDirectory() || (uid !== undefined && s.uid !== uid)) continue;
    const pid = NAMED.exec(name)?.[1];
    const abandoned = pid !== undefined ? !isRunning(Number(pid)) : /^petal-import-[A-Za-z0-9]{6}$/.test(name) && Date.now() - s.mtimeMs > UNNAMED_STALE_MS;
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
