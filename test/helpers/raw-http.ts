// Test helper: HTTP/1.1 over a bare TCP socket, for what no client library sends: request targets
// holding `#`, trickled headers, half-closed sockets, CONNECT.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed the connection without answering. */
  readonly status: number;
  readonly head: string;
  readonly body: string;
  /** Milliseconds from connecting to the server closing the connection. */
  readonly closedAfterMs: number;
  /** When the server closed it (Date.now()). */
  readonly closedAt: number;
}

export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends on `socket` until it closes the connection (or `timeoutMs` passes). */
export function readUntilClosed(socket: Socket, timeoutMs = 30_000): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      resolve({ status: status === undefined ? 0 : Number(status), head, body: split < 0 ? '' : text.slice(split + 4), closedAfterMs: Date.now() - started, closedAt: Date.now() });
    };
    const timer = setTimeout(() => { socket.destroy(); finish(); }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.once('close', finish);
  });
}

/** Sends `text` as it is (end the head with CRLF CRLF yourself) and reads the answer until the server closes. */
export async function rawRequest(port: number, text: string, o: { halfClose?: boolean; timeoutMs?: number } = {}): Promise<RawAnswer> {
  const socket = await openSocket(port);
  const answer = readUntilClosed(socket, o.timeoutMs);
  if (o.halfClose) socket.end(text);
  else socket.write(text);
  return answer;
}

/** The value of a header in a raw head (first occurrence, case-insensitive), or undefined. */
export function headerOf(head: string, name: string): string | undefined {
  const re = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im');
  return re.exec(head)?.[1]?.trim();
}
