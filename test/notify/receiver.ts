// Test helper: a local webhook receiver recording every request (raw body, headers) and answering
// what the test says, and a wait for a condition the sender reaches on its own.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookPayload } from '../../src/notify/webhook-events.js';

export interface Received {
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
  readonly payload: WebhookPayload;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** The status of the next answers (given each request and how many came before it). */
  answer: (r: Received, before: number) => number;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const receiver = { received, answer } as Receiver & { url: string };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { body, headers: req.headers, payload: JSON.parse(body) as WebhookPayload };
      const status = receiver.answer(r, received.length);
      received.push(r);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return receiver;
}

/** Waits for a condition the sender reaches on its own; fails with `what` after 10 s. */
export async function until(check: () => boolean | Promise<boolean>, what: () => unknown): Promise<void> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`condition not reached in time: ${JSON.stringify(what())}`);
}
