// petal.yaml `publishing:` (issue 17): off unless `enabled: true`; other keys are refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';

let cwd: string;
beforeEach(() => { cwd = mkdtempSync(join(tmpdir(), 'h-sched-config-')); });
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

function configOf(text: string) {
  const file = join(cwd, 'petal.yaml');
  writeFileSync(file, text);
  return loadConfig({ config: file }, {}, cwd);
}

describe('publishing config', () => {
  it('is off unless enabled', () => {
    expect(configOf('port: 1\n').publishing?.enabled ?? false).toBe(false);
    expect(configOf('publishing: {}\n').publishing).toEqual({ enabled: false });
    expect(configOf('publishing: { enabled: true }\n').publishing).toEqual({ enabled: true });
  });

  it('refuses other keys and values', () => {
    expect(() => configOf('publishing: { enable: true }\n')).toThrow(/publishing/);
    expect(() => configOf('publishing: { enabled: yes please }\n')).toThrow(/publishing\.enabled/);
  });
});
