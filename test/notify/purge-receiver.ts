// Test helper: a local HTTP server standing in for a purge target (Fastly's, Cloudflare's or any URL):
// it records every call (path, headers, raw body, arrival time) and answers with the statuses it is
// told to, in order, then 200 with the vendor's success body.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** performance.timeOrigin + performance.now() at arrival (ms). */
  readonly at: number;
}

export interface PurgeReceiver {
  readonly url: string;
  readonly calls: ReceivedCall[];
  /** The next calls are answered with these statuses (then 200 again). */
  fail(...statuses: number[]): void;
  /** Called with every call as it arrives. */
  onCall?: (call: ReceivedCall) => void;
  close(): Promise<void>;
}

export async function startReceiver(okBody = '{"success":true}'): Promise<PurgeReceiver> {
  const failures: number[] = [];
  const calls: ReceivedCall[] = [];
  let receiver: PurgeReceiver | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call: ReceivedCall = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.timeOrigin + performance.now() };
      calls.push(call);
      receiver?.onCall?.(call);
      const status = failures.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? okBody : '{"success":false}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver = {
    url: `http://127.0.0.1:${port}`,
    calls,
    fail: (...statuses) => { failures.push(...statuses); },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  return receiver;
}

/** The keys a call carried, in any of the three forms. */
export function keysOf(call: ReceivedCall): string[] {
  const header = call.headers['surrogate-key'];
  if (typeof header === 'string') return header.split(' ');
  const body = JSON.parse(call.body) as { tags?: string[]; keys?: string[] };
  return body.tags ?? body.keys ?? [];
}

/** The keys of every call, as one set. */
export function allKeys(calls: readonly ReceivedCall[]): Set<string> {
  return new Set(calls.flatMap(keysOf));
}
