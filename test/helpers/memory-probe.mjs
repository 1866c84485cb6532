// Loaded only by memory tests and bench/memory-flood.ts, into a `petal serve` child started with
// `node --expose-gc --import <this file>` and an IPC channel: on request, collects garbage and sends
// back process.memoryUsage(), so what the parent reads is what the caches hold, not garbage not yet
// collected. Inert in any other process (no channel or no gc).
import { getHeapSpaceStatistics } from 'node:v8';

const gc = globalThis.gc;
if (typeof process.send === 'function' && typeof gc === 'function') {
  process.on('message', (message) => {
    if (message === null || typeof message !== 'object' || message.type !== 'petal-memory-probe') return;
    // Full collections, each followed by turns of the event loop: a collection only schedules the
    // finalizers of native objects (Buffers' backing stores, SQLite statements), which run later.
    void (async () => {
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 2; i++) gc();
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      }
      gc();
      // The young generation grows under load and stays committed: RSS that no cache holds.
      const newSpace = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
      process.send({ type: 'petal-memory-probe', id: message.id, usage: { ...process.memoryUsage(), newSpace } });
    })();
  });
  // The channel must not keep a stopping server alive.
  process.channel?.unref();
}
