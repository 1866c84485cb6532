// Config layer: the default store used to be data/petal.db of the current folder; it is now data/petal.db
// beside petal.yaml. An upgraded install run with --config from elsewhere must not get a new empty store
// while its content sits at the old place.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { DEFAULT_STORE_FILE, type PetalConfig } from './load-config.js';

/** Throws a ConfigError naming both files when the default store is missing and the old one is there. */
export function checkMovedDefaultStore(config: PetalConfig, cwd: string): void {
  if (config.storeIsDefault !== true || config.configFile === undefined || config.isDemo) return;
  if (!config.store.startsWith('sqlite:')) return;
  const now = config.store.slice('sqlite:'.length);
  const before = resolve(cwd, DEFAULT_STORE_FILE);
  if (before === now || existsSync(now) || !existsSync(before)) return;
  throw new ConfigError(
    config.configFile,
    `no store: is set, so the store is ${now} (beside this file), which does not exist; but ${before} does ` +
    '(where earlier versions of Petal put the default store, in the current folder). Move that file there (with its ' +
    `-wal and -shm files, if any), or set store: sqlite:${before}`,
  );
}
