// Assets layer: the disk cache of renditions, `<cacheDir>/<sha256>/<key>.<ext>`. Files appear
// atomically (written under a temporary name, then renamed); concurrent first requests for one file
// share one production; at most `maxConcurrent` productions run at once and at most `maxQueued` wait.
// Content-addressed by the blob's hash: a changed binary gets new files, nothing is ever stale.
// The folder is private (0700, owned by this process's user) and only files this process could have
// written (regular, same owner, mode 0600, not a symlink) are served; the whole is bounded by bytes.
import { randomBytes } from 'node:crypto';
import { chmodSync, constants, lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { chmod, mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { ByteLru } from '../cache/byte-lru.js';
import { FULL, Semaphore as SlotSemaphore } from '../concurrency/semaphore.js';

/** Thrown when too many productions are already waiting: answer 503 and let the client retry. */
export class RenditionBusyError extends Error {
  constructor() {
    super('Too many image renditions are being produced; retry shortly');
    this.name = 'RenditionBusyError';
  }
}

/** The semaphore of renditions: a full queue is a RenditionBusyError (503, retry shortly). */
export class Semaphore extends SlotSemaphore {
  async run<T>(task: () => Promise<T>): Promise<T> {
    const result = await this.tryRun(task);
    if (result === FULL) throw new RenditionBusyError();
    return result;
  }
}

export interface CachedFile {
  readonly file: string;
  readonly size: number;
}

export interface RenditionCacheOptions {
  readonly cacheDir: string;
  /** Productions at once (default 2). */
  readonly maxConcurrent?: number;
  /** Productions waiting for a slot before new ones are refused (default 64). */
  readonly maxQueued?: number;
  /** Disk the cached files may take, each counted as at least one 4 KiB block (default 1 GiB). */
  readonly maxBytes?: number;
  /** Told what was done to the folder at start (narrowed permissions, leftovers removed). */
  readonly onNotice?: (message: string) => void;
}

export const DEFAULT_RENDITION_CACHE_BYTES = 1024 * 1024 * 1024;
/** A file takes at least a block on disk, so a flood of tiny renditions is bounded in count too. */
const FILE_BLOCK = 4096;
/** Scratch files older than this are leftovers of a killed process (a resize stops after 60 s). */
const SCRATCH_STALE_MS = 10 * 60_000;
/** How long a rendition larger than the whole bound stays on disk: long enough to be sent. */
const OVERSIZE_GRACE_MS = 60_000;
const FILE_MODE = 0o600;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;
const DIR_MODE = 0o700;

/** The cache folder cannot be used safely (owned by someone else, writable by others, not a folder). */
export class RenditionFolderError extends Error {
  constructor(dir: string, reason: string) {
    super(`rendition cache folder ${dir}: ${reason}; set imaging.cacheDir in petal.yaml to a private folder`);
    this.name = 'RenditionFolderError';
  }
}

const SHA256 = /^[0-9a-f]{64}$/;
const KEY = /^[0-9A-Za-z_-]{1,64}$/;
const EXT = /^[0-9a-z]{1,8}$/;
const SCRATCH = /^\.(tmp|spool)-/;

export class RenditionCache {
  readonly dir: string;
  readonly #slots: Semaphore;
  readonly #inFlight = new Map<string, Promise<CachedFile>>();
  /** Every cached file by path, in use order; evicting one deletes it. */
  readonly #files: ByteLru<string, number>;
  readonly stats = { hits: 0, produced: 0, shared: 0, refusedFiles: 0 };

  constructor(o: RenditionCacheOptions) {
    this.dir = o.cacheDir;
    this.#slots = new Semaphore(o.maxConcurrent ?? 2, o.maxQueued ?? 64);
    this.#files = new ByteLru<string, number>(o.maxBytes ?? DEFAULT_RENDITION_CACHE_BYTES, (file) => {
      unlink(file).catch(() => undefined);
    });
    const notices = preparePrivateFolder(this.dir);
    notices.push(...this.#adoptExisting());
    for (const n of notices) o.onNotice?.(n);
  }

  /** Productions running and waiting now. */
  get load(): { active: number; queued: number; inFlight: number } {
    return { active: this.#slots.active, queued: this.#slots.queued, inFlight: this.#inFlight.size };
  }

  /** Files and bytes (blocks counted) the cache holds now, and its bound. */
  get usage(): { files: number; bytes: number; maxBytes: number } {
    return { files: this.#files.size, bytes: this.#files.bytes, maxBytes: this.#files.maxBytes };
  }

  /** Where the rendition `key` of blob `hash` with extension `ext` lives. */
  pathFor(hash: string, key: string, ext: string): string {
    if (!SHA256.test(hash) || !KEY.test(key) || !EXT.test(ext)) throw new Error(`bad rendition cache key ${hash}/${key}.${ext}`);
    return join(this.dir, hash, `${key}.${ext}`);
  }

  /**
   * The cached file, producing it with `produce(tempFile)` when absent. `produce` must write the
   * complete file at the path it is given; it runs in a slot, once for all concurrent callers.
   */
  async get(file: string, produce: (tempFile: string) => Promise<void>): Promise<CachedFile> {
    const pending = this.#inFlight.get(file);
    if (pending !== undefined) {
      this.stats.shared++;
      return pending;
    }
    const hit = await this.#trustedSize(file);
    if (hit !== undefined) {
      this.stats.hits++;
      return { file, size: hit };
    }
    // Checked again: another caller may have started while we looked at the disk.
    const again = this.#inFlight.get(file);
    if (again !== undefined) {
      this.stats.shared++;
      return again;
    }
    const p = this.#slots.run(async () => {
      const done = await this.#trustedSize(file); // produced by another process meanwhile
      if (done !== undefined) return { file, size: done };
      await mkdir(dirname(file), { recursive: true, mode: DIR_MODE });
      const temp = join(dirname(file), `.tmp-${randomBytes(8).toString('hex')}-${file.slice(file.lastIndexOf('/') + 1)}`);
      try {
        await produce(temp);
        // Encoders create files with the umask's mode; 0600 is what marks a file as written here.
        await chmod(temp, FILE_MODE);
        await rename(temp, file);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      this.stats.produced++;
      const size = await this.#trustedSize(file);
      if (size === undefined) throw new Error(`rendition ${file} vanished after it was written`);
      return { file, size };
    });
    this.#inFlight.set(file, p);
    try {
      return await p;
    } finally {
      this.#inFlight.delete(file);
    }
  }

  /** Streams bytes `start..end` of a cached file, never following a symlink put in its place. */
  static openRange(file: string, start: number, end: number): Readable {
    return Readable.from((async function* () {
      const handle = await open(file, READ_FLAGS);
      try {
        yield* handle.createReadStream({ start, end, autoClose: false });
      } finally {
        await handle.close();
      }
    })(), { objectMode: false });
  }

  /** A scratch file path in the cache directory (for spooling inputs); the caller removes it. */
  scratchFile(suffix: string): string {
    return join(this.dir, `.spool-${randomBytes(8).toString('hex')}${suffix}`);
  }

  /**
   * The size of `file` if it is one this process wrote (regular, not a symlink, owned by this user,
   * mode 0600), recorded as used; anything else there is removed and counts as a miss.
   */
  async #trustedSize(file: string): Promise<number | undefined> {
    let handle;
    try {
      handle = await open(file, READ_FLAGS);
    } catch (err) {
      // ELOOP: a symlink where a rendition should be.
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') await this.#refuse(file);
      return undefined;
    }
    let size: number | undefined;
    try {
      const s = await handle.stat();
      if (isOwnPrivateFile(s)) size = s.size;
    } finally {
      await handle.close();
    }
    if (size === undefined) {
      await this.#refuse(file);
      return undefined;
    }
    if (this.#files.has(file)) this.#files.get(file);
    else this.#track(file, size);
    return size;
  }

  async #refuse(file: string): Promise<void> {
    this.stats.refusedFiles++;
    this.#files.delete(file);
    await rm(file, { force: true }).catch(() => undefined);
  }

  #track(file: string, size: number): void {
    if (this.#files.set(file, size, Math.max(size, FILE_BLOCK))) return;
    // Larger than the whole bound: serve it this once, then drop it.
    setTimeout(() => { if (!this.#files.has(file)) rm(file, { force: true }).catch(() => undefined); }, OVERSIZE_GRACE_MS).unref();
  }

  /** Records the files already in the folder, oldest first, and removes scratch files of killed processes. */
  #adoptExisting(): string[] {
    const found: { file: string; size: number; mtime: number }[] = [];
    let scratch = 0;
    // Another instance may share the folder: only its old scratch files are certainly abandoned.
    const dropIfStale = (path: string, mtime: number) => {
      if (Date.now() - mtime < SCRATCH_STALE_MS) return;
      rmSync(path, { force: true, recursive: true });
      scratch++;
    };
    for (const hash of readdirSync(this.dir)) {
      const sub = join(this.dir, hash);
      const st = lstatSync(sub);
      if (SCRATCH.test(hash)) { dropIfStale(sub, st.mtimeMs); continue; }
      if (!SHA256.test(hash) || !st.isDirectory()) continue;
      for (const name of readdirSync(sub)) {
        const file = join(sub, name);
        const f = lstatSync(file);
        if (SCRATCH.test(name)) dropIfStale(file, f.mtimeMs);
        else if (isOwnPrivateFile(f)) found.push({ file, size: f.size, mtime: f.mtimeMs });
      }
    }
    found.sort((a, b) => a.mtime - b.mtime);
    for (const f of found) this.#track(f.file, f.size);
    return scratch > 0 ? [`rendition cache ${this.dir}: removed ${scratch} leftover temporary file(s)`] : [];
  }
}

function isOwnPrivateFile(s: { isFile(): boolean; uid: number; mode: number }): boolean {
  const uid = process.getuid?.();
  return s.isFile() && (uid === undefined || s.uid === uid) && (s.mode & 0o077) === 0;
}

/**
 * Creates `dir` (0700) or checks an existing one: it must be a folder owned by this process's user
 * and writable by nobody else (or another local user could plant or swap renditions). One readable
 * by others, like a folder made by an older version, is narrowed to 0700. Returns what it changed.
 */
export function preparePrivateFolder(dir: string): string[] {
  try {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    throw new RenditionFolderError(dir, `cannot be created (${(err as Error).message})`);
  }
  const real = realpathSync(dir);
  const s = statSync(real);
  if (!s.isDirectory()) throw new RenditionFolderError(dir, 'is not a folder');
  const uid = process.getuid?.();
  if (uid !== undefined && s.uid !== uid) throw new RenditionFolderError(dir, `is owned by user ${s.uid}, not by this process (user ${uid})`);
  if ((s.mode & 0o022) !== 0) throw new RenditionFolderError(dir, `is writable by other users (mode ${(s.mode & 0o777).toString(8)})`);
  if ((s.mode & 0o077) === 0) return [];
  chmodSync(real, DIR_MODE);
  return [`rendition cache ${dir}: narrowed from mode ${(s.mode & 0o777).toString(8)} to 700`];
}

/**
 * Where renditions are cached by default: `renditions/` next to a SQLite store file, else the user's
 * cache folder (`$XDG_CACHE_HOME/petal/renditions`, `~/.cache/petal/renditions`), never a shared one.
 */
export function defaultRenditionCacheDir(storeUrl?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (storeUrl !== undefined && storeUrl.startsWith('sqlite:')) {
    const file = storeUrl.slice('sqlite:'.length);
    if (file !== '' && file !== ':memory:') return join(dirname(file), 'renditions');
  }
  const cacheHome = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(cacheHome, 'petal', 'renditions');
}
