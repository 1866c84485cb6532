// petal.yaml `metrics:` to build-app's options: on by default without a token; a token variable named
// but not set stops the start.
import { describe, expect, it } from 'vitest';
import type { PetalConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/config/config-error.js';
import { metricsOptionsOf } from '../../src/main.js';

const config = (metrics?: PetalConfig['metrics']) => ({ configFile: '/x/petal.yaml', ...(metrics !== undefined ? { metrics } : {}) }) as PetalConfig;

describe('metricsOptionsOf', () => {
  it('is on without a token when petal.yaml says nothing', () => {
    expect(metricsOptionsOf(config(), {})).toEqual({ enabled: true });
  });
  it('reads the token from the variable tokenEnv names', () => {
    expect(metricsOptionsOf(config({ enabled: true, tokenEnv: 'SCRAPE' }), { SCRAPE: 's3cret' })).toEqual({ enabled: true, token: 's3cret' });
  });
  it('stops the start when that variable is missing or empty', () => {
    for (const env of [{}, { SCRAPE: '' }]) {
      expect(() => metricsOptionsOf(config({ enabled: true, tokenEnv: 'SCRAPE' }), env)).toThrow(ConfigError);
    }
    expect(() => metricsOptionsOf(config({ enabled: true, tokenEnv: 'SCRAPE' }), {})).toThrow(/SCRAPE/);
  });
  it('needs no token when disabled', () => {
    expect(metricsOptionsOf(config({ enabled: false, tokenEnv: 'SCRAPE' }), {})).toEqual({ enabled: false });
  });
});
