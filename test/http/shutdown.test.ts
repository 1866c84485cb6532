// Shutdown (issue 14, point 7): after SIGTERM the server stops accepting, closes idle keep-alive
// connections at once, lets an answer in flight finish with `Connection: close`, closes whatever is
// still open after `limits.shutdownGraceMs`, and exits 0, however slow or idle its clients are.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { headerOf, openSocket, readUntilClosed } from '../helpers/raw-http.js';

const CHILD = join(import.meta.dirname, '..', 'helpers', 'serve-child.ts');
// Long enough that "closed at once" (well under half of it) and "closed by the grace" stay apart on a
// loaded machine, where the child may need a second or more to act on the signal.
const GRACE_MS = 10_000;

let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Starts `petal serve` on a free port; resolves with the port once it listens. */
async function startChild(): Promise<number> {
  dir = mkdtempSync(join(tmpdir(), 'petal-shutdown-'));
  const config = join(dir, 'petal.yaml');
  // Timeouts far beyond the grace: only the shutdown may close the slow connections.
  writeFileSync(config, `store: sqlite:./petal.db\nport: 0\nhost: 127.0.0.1\nlogLevel: info\nlimits: { headersTimeoutMs: 60000, requestTimeoutMs: 60000, keepAliveTimeoutMs: 60000, shutdownGraceMs: ${GRACE_MS} }\n`);
  child = spawn(process.execPath, ['--import', 'tsx', CHILD, 'serve', '--config', config], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PETAL_LOG_FORMAT: 'json' },
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 100 s: ${out}`)), 100_000);
    child!.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /serving .* at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m !== null) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    child!.stderr!.on('data', (c: Buffer) => { out += c.toString('utf8'); });
    child!.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}: ${out}`)); });
  });
}

function exitOf(p: ChildProcess): Promise<{ code: number | null; afterMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => p.once('exit', (code) => resolve({ code, afterMs: Date.now() - started })));
}

describe('SIGTERM', () => {
  it('closes idle and slow connections, finishes the answer in flight, exits 0 within the grace', async () => {
    const port = await startChild();
    // Idle: connected without a byte sent, and kept alive after an answer.
    const silent = await openSocket(port);
    const silentClosed = readUntilClosed(silent, 60_000);
    const keptAlive = await openSocket(port);
    keptAlive.write('GET /.health HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise<void>((r) => keptAlive.once('data', () => r()));
    const keptAliveClosed = readUntilClosed(keptAlive, 60_000);
    // Slow: headers trickled for as long as the server lets it.
    const trickler = await openSocket(port);
    const tricklerClosed = readUntilClosed(trickler, 60_000);
    trickler.write('GET /.health HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => { if (trickler.writable) trickler.write('X-Slow: 1\r\n'); }, 100);
    // In flight: a body half sent, finished after the signal.
    const body = JSON.stringify({ username: 'nobody', password: 'wrong-password' });
    const inFlight = await openSocket(port);
    const inFlightAnswer = readUntilClosed(inFlight, 60_000);
    inFlight.write(`POST /.auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
    // No sign tells when the server has read the headers; a second leaves room on a loaded machine.
    await new Promise((r) => setTimeout(r, 1_000));

    const exited = exitOf(child!);
    const signalledAt = Date.now();
    child!.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    inFlight.write(body.slice(10));
    try {
      const answer = await inFlightAnswer;
      expect(answer.status, answer.head).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(headerOf(answer.head, 'connection')).toBe('close');

      // A new connection is refused once the server stopped listening.
      const refused = await new Promise<boolean>((resolve) => {
        const s = connect({ port, host: '127.0.0.1' }, () => { s.destroy(); resolve(false); });
        s.once('error', () => resolve(true));
      });
      expect(refused).toBe(true);

      expect((await silentClosed).closedAt - signalledAt).toBeLessThan(GRACE_MS / 2);
      expect((await keptAliveClosed).closedAt - signalledAt).toBeLessThan(GRACE_MS / 2);
      const { code, afterMs } = await exited;
      expect(code).toBe(0);
      expect(afterMs).toBeLessThan(GRACE_MS + 20_000);
      expect((await tricklerClosed).closedAt - signalledAt).toBeLessThan(GRACE_MS + 20_000);
    } finally {
      clearInterval(trickle);
    }
  }, 180_000);
});
