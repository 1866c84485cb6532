// Test helper: runs the `petal` command in this process (src/cli.ts main) as a child process would see it:
// a working folder, an environment without our PETAL_* settings, standard input, and its output and exit
// code captured. Spawning node per command took seconds each on a loaded machine; this takes milliseconds.
// The commands read process.cwd(), process.env and process.std*: they are swapped for the call and put
// back, one call at a time (vitest's forks pool gives each test file a process of its own, where chdir works).
import { Readable } from 'node:stream';
import { main } from '../../src/cli.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRunOptions {
  /** The working folder (default: this process's). */
  readonly cwd?: string;
  /** Variables added to the environment (ours less PETAL_*). */
  readonly env?: Readonly<Record<string, string>>;
  /** Standard input, closed after it (default: empty). */
  readonly stdin?: string;
}

type WriteCallback = (err?: Error | null) => void;

let queue: Promise<unknown> = Promise.resolve();

/** `petal ...argv`: its exit code and what it wrote; an exception escaping main is exit 1, as bin/petal.js does. */
export function runCli(argv: readonly string[], options: CliRunOptions = {}): Promise<CliRun> {
  const run = queue.then(() => runNow(argv, options));
  queue = run.catch(() => undefined);
  return run;
}

async function runNow(argv: readonly string[], options: CliRunOptions): Promise<CliRun> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const capture = (into: Buffer[]) => (chunk: string | Uint8Array, encoding?: BufferEncoding | WriteCallback, cb?: WriteCallback): boolean => {
    into.push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : Buffer.from(chunk));
    const done = typeof encoding === 'function' ? encoding : cb;
    if (done) process.nextTick(done);
    return true;
  };
  const savedCwd = process.cwd();
  const savedEnv = { ...process.env };
  const stdinDescriptor = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  for (const k of Object.keys(process.env)) if (k.startsWith('PETAL_')) delete process.env[k];
  Object.assign(process.env, options.env ?? {});
  const stdin = Readable.from(options.stdin !== undefined && options.stdin !== '' ? [Buffer.from(options.stdin)] : []);
  Object.defineProperty(process, 'stdin', { configurable: true, enumerable: true, get: () => stdin });
  if (options.cwd !== undefined) process.chdir(options.cwd);
  process.stdout.write = capture(out) as typeof process.stdout.write;
  process.stderr.write = capture(err) as typeof process.stderr.write;
  let code: number;
  try {
    code = await main([...argv]);
  } catch (e) {
    err.push(Buffer.from(`${e instanceof Error ? e.message : String(e)}\n`));
    code = 1;
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    process.chdir(savedCwd);
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
    Object.defineProperty(process, 'stdin', stdinDescriptor);
  }
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
