// Tests for config/watch-modules.ts: file events below a light-modules folder reach onChange, debounced.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchModules, type ModuleWatcher } from '../../src/config/watch-modules.js';

const DEFINITION = '$type: jcrDeliveryEndpoint_v2\nworkspace: tours\n';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once `calls()` reaches `count`, or rejects after `timeoutMs`. */
async function waitFor(calls: () => number, count: number, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (calls() < count) {
    if (Date.now() - start > timeoutMs) throw new Error(`onChange was called ${calls()} times, expected ${count}`);
    await sleep(20);
  }
}

describe('watchModules', () => {
  let root: string;
  let watcher: ModuleWatcher | undefined;
  let calls: number;

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'petal-watch-'));
    mkdirSync(path.join(root, 'mod/restEndpoints/delivery'), { recursive: true });
    calls = 0;
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  async function start(debounceMs = 50): Promise<void> {
    watcher = watchModules([root], () => calls++, { debounceMs });
    await watcher.ready;
  }

  it('calls onChange when a definition is added, changed and removed', async () => {
    await start();
    const file = path.join(root, 'mod/restEndpoints/delivery/tours_v1.yaml');
    writeFileSync(file, DEFINITION);
    await waitFor(() => calls, 1);
    writeFileSync(file, `${DEFINITION}depth: 2\n`);
    await waitFor(() => calls, 2);
    rmSync(file);
    await waitFor(() => calls, 3);
  });

  it('reports .yml files too, so that they can be rejected with a message', async () => {
    await start();
    writeFileSync(path.join(root, 'mod/restEndpoints/tours.yml'), DEFINITION);
    await waitFor(() => calls, 1);
  });

  it('coalesces a burst of writes into one call', async () => {
    await start(300);
    for (const name of ['a', 'b', 'c']) writeFileSync(path.join(root, `mod/restEndpoints/${name}.yaml`), DEFINITION);
    await waitFor(() => calls, 1);
    await sleep(600);
    expect(calls).toBe(1);
  });

  it('ignores other files, dotfiles and node_modules', async () => {
    mkdirSync(path.join(root, 'node_modules/pkg'), { recursive: true });
    await start();
    writeFileSync(path.join(root, 'mod/restEndpoints/notes.txt'), 'x');
    writeFileSync(path.join(root, 'mod/restEndpoints/.draft.yaml'), DEFINITION);
    writeFileSync(path.join(root, 'node_modules/pkg/x.yaml'), DEFINITION);
    await sleep(500);
    expect(calls).toBe(0);
  });

  it('stops calling after close', async () => {
    await start();
    await watcher!.close();
    writeFileSync(path.join(root, 'mod/restEndpoints/late.yaml'), DEFINITION);
    await sleep(300);
    expect(calls).toBe(0);
  });
});
