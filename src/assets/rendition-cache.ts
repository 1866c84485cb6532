// Assets layer: the disk cache of renditions, `<cacheDir>/<sha256>/<key>.<ext>`. Files appear
// atomically (written under a temporary name, then renamed); concurrent first requests for one file
// share one production; at most `maxConcurrent` productions run at once and at most `maxQueued` wait.
// Content-addressed by the blob's hash: a changed binary gets new files, nothing is ever stale.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Thrown when too many productions are already waiting: answer 503 and let the client retry. */
export class RenditionBusyError extends Error {
  constructor() {
    super('Too many image renditions are being produced; retry shortly');
    this.name = 'RenditionBusyError';
  }
}

/** A counting semaphore with a bounded wait queue. */
export class Semaphore {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly max: number, readonly maxQueued: number = Infinity) {
    if (!(max >= 1)) throw new Error('Semaphore needs max >= 1');
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `task` when a slot is free; throws RenditionBusyError when the queue is full. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.max) {
      if (this.#waiting.length >= this.maxQueued) throw new RenditionBusyError();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active++;
    }
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next(); // the slot passes to the next waiter: #active stays
      else this.#active--;
    }
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
}

const SHA256 = /^[0-9a-f]{64}$/;
const KEY = /^[0-9A-Za-z_-]{1,64}$/;
const EXT = /^[0-9a-z]{1,8}$/;

export class RenditionCache {
  readonly dir: string;
  readonly #slots: Semaphore;
  readonly #inFlight = new Map<string, Promise<CachedFile>>();
  readonly stats = { hits: 0, produced: 0, shared: 0 };

  constructor(o: RenditionCacheOptions) {
    this.dir = o.cacheDir;
    this.#slots = new Semaphore(o.maxConcurrent ?? 2, o.maxQueued ?? 64);
    mkdirSync(this.dir, { recursive: true });
  }

  /** Productions running and waiting now. */
  get load(): { active: number; queued: number; inFlight: number } {
    return { active: this.#slots.active, queued: this.#slots.queued, inFlight: this.#inFlight.size };
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
    const hit = await sizeOf(file);
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
      const done = await sizeOf(file); // produced by another process meanwhile
      if (done !== undefined) return { file, size: done };
      await mkdir(dirname(file), { recursive: true });
      const temp = join(dirname(file), `.tmp-${randomBytes(8).toString('hex')}-${file.slice(file.lastIndexOf('/') + 1)}`);
      try {
        await produce(temp);
        await rename(temp, file);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      this.stats.produced++;
      return { file, size: (await stat(file)).size };
    });
    this.#inFlight.set(file, p);
    try {
      return await p;
    } finally {
      this.#inFlight.delete(file);
    }
  }

  /** A scratch file path in the cache directory (for spooling inputs); the caller removes it. */
  scratchFile(suffix: string): string {
    return join(this.dir, `.spool-${randomBytes(8).toString('hex')}${suffix}`);
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    const s = await stat(file);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where renditions are cached by default: `renditions/` next to a SQLite store file, else a folder in
 * the OS temporary directory.
 */
export function defaultRenditionCacheDir(storeUrl?: string): string {
  if (storeUrl !== undefined && storeUrl.startsWith('sqlite:')) {
    const file = storeUrl.slice('sqlite:'.length);
    if (file !== '' && file !== ':memory:') return join(dirname(file), 'renditions');
  }
  return join(tmpdir(), 'petal-renditions');
}
