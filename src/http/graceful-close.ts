// HTTP layer: stopping without letting clients decide when. Node's server.close() waits for every
// connection and stops enforcing the headers and request timeouts meanwhile, so one client that was
// silent or trickled headers kept a stopping process alive as long as it wished. Here: no new
// connections; connections without a request (never used, or kept alive after their last answer)
// closed at once; answers in flight finish with `Connection: close`; whatever is still open after the
// grace period is closed.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

interface DrainState {
  draining: boolean;
  readonly sockets: Set<Socket>;
}

const states = new WeakMap<FastifyInstance, DrainState>();

/**
 * Tracks connections (one Set entry each) and marks answers written while draining `Connection: close`;
 * returns whether the app drains now (for answers written outside Fastify: cached-hits.ts).
 */
export function registerGracefulClose(app: FastifyInstance): () => boolean {
  const state: DrainState = { draining: false, sockets: new Set() };
  states.set(app, state);
  app.server.on('connection', (socket: Socket) => {
    state.sockets.add(socket);
    socket.once('close', () => state.sockets.delete(socket));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (state.draining) reply.header('connection', 'close');
    done(null, payload);
  });
  return () => state.draining;
}

/** Closes `app` (its onClose hooks included) within about `graceMs`, whatever its clients do. */
export async function closeGracefully(app: FastifyInstance, graceMs: number): Promise<void> {
  const state = states.get(app);
  const server = app.server;
  if (state !== undefined) {
    state.draining = true;
    // Never sent a byte: no request to finish (Node counts these as active, not idle).
    for (const socket of state.sockets) if (socket.bytesRead === 0) socket.destroy();
  }
  // Connections become idle when their last answer is written: close them as they do.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  const force = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await app.close(); // server.close(): stops listening and closes the connections idle now
  } finally {
    clearInterval(sweep);
    clearTimeout(force);
  }
}
