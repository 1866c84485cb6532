// `cache:` in petal.yaml: the response cache's byte budget, 64 MiB by default, 0 to turn it off.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { DEFAULT_CACHE_MAX_BYTES } from '../../src/http/response-cache.js';

let cwd: string;

beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'petal-cache-config-'));
});
afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
});

function load(yaml: string) {
  writeFileSync(join(cwd, 'petal.yaml'), `store: sqlite:./petal.db\n${yaml}`);
  return loadConfig({}, {}, cwd);
}

describe('cache in petal.yaml', () => {
  it('leaves the budget to the app (64 MiB) when not set', () => {
    expect(DEFAULT_CACHE_MAX_BYTES).toBe(64 * 1024 * 1024);
    expect(load('').cache).toBeUndefined();
    expect(load('cache: {}\n').cache).toBeUndefined();
  });

  it('takes maxBytes, 0 included', () => {
    expect(load('cache: { maxBytes: 1048576 }\n').cache).toEqual({ maxBytes: 1_048_576 });
    expect(load('cache:\n  maxBytes: 0\n').cache).toEqual({ maxBytes: 0 });
  });

  it.each([
    ['cache: { maxBytes: -1 }\n', /cache\.maxBytes/],
    ['cache: { maxBytes: 1.5 }\n', /cache\.maxBytes/],
    ['cache: { maxBytes: lots }\n', /cache\.maxBytes/],
    ['cache: { size: 10 }\n', /cache: unknown key\(s\) size/],
  ])('refuses %j', (yaml, message) => {
    expect(() => load(yaml)).toThrow(ConfigError);
    expect(() => load(yaml)).toThrow(message);
  });
});
