// Config layer: watches light-module folders and reports (debounced) that their YAML files changed.
import path from 'node:path';
import { watch } from 'chokidar';
import type { Stats } from 'node:fs';

export interface WatchModulesOptions {
  /** Quiet time after the last event before `onChange` runs; editors and `git checkout` write in bursts. */
  readonly debounceMs?: number;
  readonly onError?: (error: unknown) => void;
}

export interface ModuleWatcher {
  /** Resolves once the initial scan is done; changes made before that may go unreported. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_DEBOUNCE_MS = 100;

/** Calls `onChange` after `.yaml`/`.yml` files below the roots are added, changed or removed. */
export function watchModules(
  moduleRoots: string[],
  onChange: () => void,
  opts: WatchModulesOptions = {},
): ModuleWatcher {
  const roots = moduleRoots.map((r) => path.resolve(r));
  const debounceMs = opts.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const schedule = (): void => {
    if (closed) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) onChange();
    }, debounceMs);
  };

  const watcher = watch(roots, {
    ignoreInitial: true,
    ignored: (file: string, stats?: Stats) => isIgnored(roots, file, stats),
  });
  watcher.on('all', (event, file) => {
    // A removed folder may take endpoint files with it without one event per file.
    if (event === 'unlinkDir' || ((event === 'add' || event === 'change' || event === 'unlink') && isYaml(file))) {
      schedule();
    }
  });
  watcher.on('error', (err) => opts.onError?.(err));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  return {
    ready,
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await watcher.close();
    },
  };
}

function isYaml(file: string): boolean {
  return file.endsWith('.yaml') || file.endsWith('.yml');
}

function isIgnored(roots: readonly string[], file: string, stats: Stats | undefined): boolean {
  const root = roots.find((r) => file === r || file.startsWith(r + path.sep));
  if (root === undefined) return false;
  // Only names below the root count: the root itself may well sit in a dot-folder.
  const below = path.relative(root, file);
  if (below !== '' && below.split(path.sep).some((s) => s.startsWith('.') || s === 'node_modules')) return true;
  return stats?.isFile() === true && !isYaml(file);
}
