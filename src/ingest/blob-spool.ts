// Ingest layer: decodes one base64 binary value piece by piece into a spool file named by its sha256.
import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobSpool } from '../store/rows.js';

const WHITESPACE = /\s+/g;
const BASE64_TEXT = /^[A-Za-z0-9+/=]*$/;

/**
 * Parsers feed text synchronously (from parser callbacks) and the file writes are queued behind one
 * promise chain; a streaming caller awaits `settled()` after each input chunk, so at most one chunk of
 * decoded bytes is ever waiting in memory.
 */
export class Base64Spool {
  private readonly hash = createHash('sha256');
  private size = 0;
  /** Base64 characters not yet decoded, because a chunk ended inside a 4-character quantum. */
  private carry = '';
  private padded = false;
  private ended = false;
  private handle: FileHandle | undefined;
  private chain: Promise<void>;
  private readonly tmpFile: string;

  constructor(private readonly spoolDir: string) {
    this.tmpFile = join(spoolDir, `.spool-${randomUUID()}`);
    this.chain = this.track(
      mkdir(spoolDir, { recursive: true })
        .then(() => open(this.tmpFile, 'wx'))
        .then((fh) => { this.handle = fh; }),
    );
  }

  /** Accepts any slice of the base64 text; whitespace (line breaks in exports) is ignored. */
  appendBase64(text: string): void {
    const clean = text.replace(WHITESPACE, '');
    if (clean === '') return;
    if (this.ended) throw new Error('binary value already ended');
    if (this.padded) throw new Error('invalid base64: data after padding');
    if (!BASE64_TEXT.test(clean)) throw new Error('invalid base64: unexpected character');
    const all = this.carry + clean;
    const usable = all.length - (all.length % 4);
    this.carry = all.slice(usable);
    if (usable === 0) return;
    const quanta = all.slice(0, usable);
    const pad = quanta.indexOf('=');
    if (pad !== -1) {
      // Buffer.from ignores misplaced padding silently; an export with it is corrupt.
      if (pad < usable - 2 || !/^=+$/.test(quanta.slice(pad))) throw new Error('invalid base64: misplaced padding');
      this.padded = true;
    }
    this.appendBytes(Buffer.from(quanta, 'base64'));
  }

  appendBytes(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.hash.update(bytes);
    this.size += bytes.length;
    this.chain = this.track(this.chain.then(() => writeAll(this.openHandle(), bytes)));
  }

  /** Ends the value: the hash and size are known at once; the file is renamed to the hash later (see `settled`). */
  end(): BlobSpool {
    if (this.carry !== '') {
      // Unpadded base64 (2 or 3 trailing characters) is still unambiguous, so accept it.
      const rest = this.carry.replace(/=+$/, '');
      if (rest.length < 2 || rest.includes('=')) throw new Error('invalid base64: truncated data');
      this.carry = '';
      this.appendBytes(Buffer.from(rest, 'base64'));
    }
    this.ended = true;
    const hash = this.hash.digest('hex');
    const file = join(this.spoolDir, hash);
    this.chain = this.track(this.chain.then(async () => {
      await this.openHandle().close();
      this.handle = undefined;
      if (await exists(file)) await unlink(this.tmpFile);
      else await rename(this.tmpFile, file);
    }));
    return { hash, size: this.size, file };
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Resolves when every queued write (and, after `end`, the rename) is done; rejects with the first I/O error. */
  settled(): Promise<void> {
    return this.chain;
  }

  /** Drops the temporary file after a failed parse (a no-op once it was renamed); never throws. */
  async abort(): Promise<void> {
    await this.chain.catch(() => undefined);
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await unlink(this.tmpFile).catch(() => undefined);
  }

  private openHandle(): FileHandle {
    if (!this.handle) throw new Error('spool file is not open');
    return this.handle;
  }

  /** A rejection is reported through `settled()`; marking it handled here keeps Node from flagging it early. */
  private track(p: Promise<void>): Promise<void> {
    p.catch(() => undefined);
    return p;
  }
}

async function writeAll(fh: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** Spools a value that is already in memory (YAML exports are parsed whole anyway). */
export async function spoolBase64(spoolDir: string, text: string): Promise<BlobSpool> {
  const spool = new Base64Spool(spoolDir);
  try {
    spool.appendBase64(text);
    const blob = spool.end();
    await spool.settled();
    return blob;
  } catch (err) {
    await spool.abort();
    throw err;
  }
}
