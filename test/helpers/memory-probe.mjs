// Loaded only by memory tests and bench/memory-flood.ts, into a `petal serve` child started with
// `node --expose-gc --import <this file>` and an IPC channel: on request, collects garbage and sends
// back process.memoryUsage(), so what the parent reads is what the caches hold, not garbage not yet
// collected. Inert in any other process (no channel or no gc).
import { getHeapSpaceStatistics } from 'node:v8';

const gc = globalThis.gc;
if (typeof process.send === 'function' && typeof gc === 'function') {
  process.on('message', (message) => {
    if (message === null || typeof message !== 'object' || message.type !== 'petal-memory-probe') return;
    // Several full collections: the first may only schedule finalizers (Buffers' backing stores).
    for (let i = 0; i < 4; i++) gc();
    setImmediate(() => {
      gc();
      // The young generation grows under load and stays committed: RSS that no cache holds.
      const newSpace = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
      process.send({ type: 'petal-memory-probe', id: message.id, usage: { ...process.memoryUsage(), newSpace } });
    });
  });
  // The channel must not keep a stopping server alive.
  process.channel?.unref();
}
