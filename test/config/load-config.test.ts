// Tests for config/load-config.ts: finding petal.yaml, resolving paths, precedence of flags > PETAL_*
// environment > file, and ConfigError reports (file, line, reason) for broken configuration.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { DEFAULT_SHOP_CONFIG, DEFAULT_STORE_FILE, loadConfig, packageRoot, type CliOverrides } from '../../src/config/load-config.js';

let cwd: string;

beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'petal-config-'));
});
afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
});

function write(rel: string, text: string): string {
  const file = join(cwd, rel);
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** Runs `fn`, expects a ConfigError, and returns it. */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError, but nothing was thrown');
}

describe('loadConfig: which file', () => {
  it('uses the bundled demo when there is no petal.yaml and no flags', () => {
    const c = loadConfig({}, {}, cwd);
    expect(c.isDemo).toBe(true);
    expect(c.configFile).toBeDefined();
    expect(c.configFile!.endsWith(`${sep}demo${sep}petal.yaml`)).toBe(true);
    expect(c.configFile).toBe(join(packageRoot(), 'demo', 'petal.yaml'));
    // the demo's relative paths resolve against the demo folder, not the cwd
    expect(c.store).toBe(`sqlite:${join(packageRoot(), 'demo', 'data', 'demo.db')}`);
    expect(c.modules).toEqual([join(packageRoot(), 'demo', 'light-modules')]);
    expect(c.content).toEqual([join(packageRoot(), 'demo', 'content')]);
    expect(c.sites).toEqual([{ name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en' }]);
  });

  it('does not use the demo when modules or a store are given by flag or environment', () => {
    const cases: [CliOverrides, NodeJS.ProcessEnv][] = [
      [{ modules: ['mods'] }, {}],
      [{ store: 'x.db' }, {}],
      [{}, { PETAL_MODULES: 'mods' }],
      [{}, { PETAL_STORE: 'x.db' }],
    ];
    for (const [overrides, env] of cases) {
      const c = loadConfig(overrides, env, cwd);
      expect(c.isDemo).toBe(false);
      expect(c.configFile).toBeUndefined();
    }
  });

  it('defaults without any file', () => {
    const { security, ...c } = loadConfig({ modules: ['mods'] }, {}, cwd);
    expect([...security.roles.keys()].sort()).toEqual(['anonymous', 'rest-anonymous', 'superuser']);
    expect(security.users.size).toBe(0);
    expect(c).toEqual({
      store: `sqlite:${join(cwd, DEFAULT_STORE_FILE)}`,
      storeIsDefault: true,
      modules: [join(cwd, 'mods')],
      content: [],
      contentPolicy: 'seed',
      baseDir: cwd,
      port: 8080,
      host: '0.0.0.0',
      namespace: 'cms',
      contextPath: '',
      sites: [],
      corsOrigins: [],
      trustProxy: false,
      logLevel: 'info',
      onUuidCollision: 'new',
      nodeTypes: {},
      links: { contextPath: '', extension: '', mappings: [] },
      pagesOnAllEndpoints: false,
      shop: DEFAULT_SHOP_CONFIG,
      limits: {},
      imaging: { transforms: 'presets', presets: {} },
      isDemo: false,
    });
  });

  it('reads the shop limits (missing keys keep their defaults) and names a bad one', () => {
    const c = loadConfig({ config: write('s1.yaml', 'shop: { maxUnitsPerOrderLine: 5, rateLimit: { ordersPerMinute: 3 } }\n') }, {}, cwd);
    expect(c.shop).toEqual({ maxUnitsPerOrderLine: 5, rateLimit: { cartsPerMinute: 30, ordersPerMinute: 3, clients: 10_000 } });
    expect(() => loadConfig({ config: write('s2.yaml', 'shop: { rateLimit: { cartsPerMinute: 0 } }\n') }, {}, cwd))
      .toThrow(/shop\.rateLimit\.cartsPerMinute: at least 1/);
    expect(() => loadConfig({ config: write('s3.yaml', 'shop: { maxUnitsPerOrderLine: 2.5 }\n') }, {}, cwd)).toThrow(/shop\.maxUnitsPerOrderLine: an integer/);
    expect(() => loadConfig({ config: write('s4.yaml', 'shop: { maxUnitsPerOrderLine: 1000 }\n') }, {}, cwd)).toThrow(/shop\.maxUnitsPerOrderLine: at most 999/);
    expect(() => loadConfig({ config: write('s5.yaml', 'shop: { rateLimit: { perHour: 1 } }\n') }, {}, cwd)).toThrow(/shop\.rateLimit: unknown key\(s\) perHour/);
  });

  it('reads pages.allEndpoints and rejects other keys under pages', () => {
    expect(loadConfig({ config: write('p1.yaml', 'pages: { allEndpoints: true }\n') }, {}, cwd).pagesOnAllEndpoints).toBe(true);
    expect(() => loadConfig({ config: write('p2.yaml', 'pages: { everywhere: true }\n') }, {}, cwd)).toThrow(/pages/);
  });

  it('reads limits (timeouts, shutdown grace) and rejects other keys, bad values and headers longer than requests', () => {
    const c = loadConfig({ config: write('l1.yaml', 'limits: { headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000, shutdownGraceMs: 0 }\n') }, {}, cwd);
    expect(c.limits).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000, shutdownGraceMs: 0 });
    expect(loadConfig({ config: write('l0.yaml', 'port: 1\n') }, {}, cwd).limits).toEqual({});
    expect(() => loadConfig({ config: write('l2.yaml', 'limits: { headerTimeoutMs: 2000 }\n') }, {}, cwd)).toThrow(/limits/);
    expect(() => loadConfig({ config: write('l3.yaml', 'limits: { requestTimeoutMs: 0 }\n') }, {}, cwd)).toThrow(/limits\.requestTimeoutMs/);
    expect(() => loadConfig({ config: write('l4.yaml', 'limits: { shutdownGraceMs: -1 }\n') }, {}, cwd)).toThrow(/limits\.shutdownGraceMs/);
    expect(configError(() => loadConfig({ config: write('l5.yaml', 'limits: { headersTimeoutMs: 40000 }\n') }, {}, cwd)).message)
      .toMatch(/limits\.headersTimeoutMs \(40000\) must not exceed limits\.requestTimeoutMs \(30000\)/);
  });

  it('reads limits.importMaxBytes and names a bad one', () => {
    expect(loadConfig({ config: write('i1.yaml', 'limits: { importMaxBytes: 1048576 }\n') }, {}, cwd).limits).toEqual({ importMaxBytes: 1048576 });
    expect(() => loadConfig({ config: write('i2.yaml', 'limits: { importMaxBytes: 10 }\n') }, {}, cwd)).toThrow(/limits\.importMaxBytes/);
    expect(() => loadConfig({ config: write('i3.yaml', 'limits: { importMaxBytes: "1G" }\n') }, {}, cwd)).toThrow(/limits\.importMaxBytes/);
  });

  it('reads the subtree cache and query index budgets, and rejects bad ones naming the key', () => {
    const c = loadConfig({ config: write('b.yaml', 'cache: { subtreeMaxBytes: 0, queryIndexMaxBytes: 268435456 }\n') }, {}, cwd);
    expect(c.subtreeCacheMaxBytes).toBe(0);
    expect(c.queryIndexMaxBytes).toBe(268435456);
    expect(configError(() => loadConfig({ config: write('b2.yaml', 'cache: { subtreeMaxBytes: -1 }\n') }, {}, cwd)).message).toMatch(/subtreeMaxBytes/);
    expect(configError(() => loadConfig({ config: write('b3.yaml', 'cache: { queryIndexMaxBytes: 1000 }\n') }, {}, cwd)).message).toMatch(/queryIndexMaxBytes/);
  });

  it('reads the query index threshold (absent: not set, the store default), and rejects a negative one naming the key', () => {
    expect(loadConfig({ config: write('t.yaml', 'cache: { queryIndexThreshold: 2000 }\n') }, {}, cwd).queryIndexThreshold).toBe(2000);
    expect(loadConfig({ config: write('t1.yaml', 'port: 9124\n') }, {}, cwd).queryIndexThreshold).toBeUndefined();
    expect(configError(() => loadConfig({ config: write('t2.yaml', 'cache: { queryIndexThreshold: -1 }\n') }, {}, cwd)).message).toMatch(/queryIndexThreshold/);
  });

  it('reads contentPolicy (absent: seed) and the folder content files are recorded against, and names a bad policy', () => {
    const c = loadConfig({ config: write('sub/p1.yaml', 'contentPolicy: overwrite\n') }, {}, cwd);
    expect(c.contentPolicy).toBe('overwrite');
    expect(c.baseDir).toBe(join(cwd, 'sub'));
    expect(loadConfig({ config: write('p2.yaml', 'port: 1\n') }, {}, cwd).contentPolicy).toBe('seed');
    expect(configError(() => loadConfig({ config: write('p3.yaml', 'contentPolicy: always\n') }, {}, cwd)).message).toMatch(/contentPolicy/);
  });

  it('reads cache.persistQueryIndex (absent: on), and rejects a value that is not a boolean', () => {
    expect(loadConfig({ config: write('p1.yaml', 'cache: { persistQueryIndex: false }\n') }, {}, cwd).persistQueryIndex).toBe(false);
    expect(loadConfig({ config: write('p2.yaml', 'cache: { maxBytes: 0 }\n') }, {}, cwd).persistQueryIndex).toBeUndefined();
    expect(configError(() => loadConfig({ config: write('p3.yaml', 'cache: { persistQueryIndex: 1 }\n') }, {}, cwd)).message).toMatch(/persistQueryIndex/);
  });

  it('uses petal.yaml in the working directory', () => {
    const file = write('petal.yaml', 'port: 9123\n');
    const c = loadConfig({}, {}, cwd);
    expect(c.isDemo).toBe(false);
    expect(c.configFile).toBe(file);
    expect(c.port).toBe(9123);
    expect(c.store).toBe(`sqlite:${join(cwd, DEFAULT_STORE_FILE)}`);
  });

  it('uses --config and PETAL_CONFIG (flag first), relative to the cwd', () => {
    write('a/one.yaml', 'port: 1111\n');
    write('b/two.yaml', 'port: 2222\n');
    write('petal.yaml', 'port: 3333\n');
    expect(loadConfig({}, { PETAL_CONFIG: 'b/two.yaml' }, cwd).port).toBe(2222);
    expect(loadConfig({ config: 'a/one.yaml' }, { PETAL_CONFIG: 'b/two.yaml' }, cwd).port).toBe(1111);
    expect(loadConfig({ config: 'a/one.yaml' }, {}, cwd).configFile).toBe(join(cwd, 'a', 'one.yaml'));
  });

  it('reports a missing --config file', () => {
    const e = configError(() => loadConfig({ config: 'nope.yaml' }, {}, cwd));
    expect(e.file).toBe(join(cwd, 'nope.yaml'));
    expect(e.message).toContain('file not found');
  });

  it('accepts an empty petal.yaml', () => {
    write('petal.yaml', '');
    const c = loadConfig({}, {}, cwd);
    expect(c.port).toBe(8080);
    expect(c.isDemo).toBe(false);
  });
});

describe('loadConfig: paths', () => {
  it('resolves store, modules and content of the file against its folder', () => {
    write('conf/petal.yaml', 'store: data/x.db\nmodules: [./lm, /abs/lm]\ncontent: ../content\n');
    const c = loadConfig({ config: 'conf/petal.yaml' }, {}, cwd);
    expect(c.store).toBe(`sqlite:${join(cwd, 'conf', 'data', 'x.db')}`);
    expect(c.modules).toEqual([join(cwd, 'conf', 'lm'), '/abs/lm']);
    expect(c.content).toEqual([join(cwd, 'content')]);
  });

  it('resolves the default store against the file, like modules and content (issue 29)', () => {
    write('conf/petal.yaml', 'port: 1\n');
    const c = loadConfig({ config: 'conf/petal.yaml' }, {}, cwd);
    expect(c.store).toBe(`sqlite:${join(cwd, 'conf', DEFAULT_STORE_FILE)}`);
    expect(c.storeIsDefault).toBe(true);
    expect(loadConfig({ config: 'conf/petal.yaml', store: 'x.db' }, {}, cwd).storeIsDefault).toBeUndefined();
    expect(loadConfig({ config: 'conf/petal.yaml' }, { PETAL_STORE: 'x.db' }, cwd).storeIsDefault).toBeUndefined();
  });

  it('resolves flags and environment against the cwd', () => {
    write('conf/petal.yaml', 'store: file.db\nmodules: [lm]\n');
    const flags = loadConfig({ config: 'conf/petal.yaml', store: 'flag.db', modules: ['flag-lm', '/abs'] }, {}, cwd);
    expect(flags.store).toBe(`sqlite:${join(cwd, 'flag.db')}`);
    expect(flags.modules).toEqual([join(cwd, 'flag-lm'), '/abs']);
    const env = loadConfig({ config: 'conf/petal.yaml' }, { PETAL_STORE: 'env.db', PETAL_MODULES: 'a,b' }, cwd);
    expect(env.store).toBe(`sqlite:${join(cwd, 'env.db')}`);
    expect(env.modules).toEqual([join(cwd, 'a'), join(cwd, 'b')]);
  });

  // src bug: loadConfig picks the base folder by comparing the chosen store text with the file's
  // (`storeRaw === raw.store`), so a flag or PETAL_STORE spelled like the file's value resolves against
  // the file's folder instead of the cwd. Remove `.fails` once fixed.
  it('resolves a --store equal to the file\'s store text against the cwd', () => {
    write('conf/petal.yaml', 'store: same.db\n');
    const c = loadConfig({ config: 'conf/petal.yaml', store: 'same.db' }, {}, cwd);
    expect(c.store).toBe(`sqlite:${join(cwd, 'same.db')}`);
  });

  it('splits PETAL_MODULES on commas and drops empty entries', () => {
    const c = loadConfig({}, { PETAL_MODULES: 'one,,/abs/two,' }, cwd);
    expect(c.modules).toEqual([join(cwd, 'one'), '/abs/two']);
  });

  it('accepts a single string for modules and content', () => {
    write('petal.yaml', 'modules: lm\ncontent: exports\n');
    const c = loadConfig({}, {}, cwd);
    expect(c.modules).toEqual([join(cwd, 'lm')]);
    expect(c.content).toEqual([join(cwd, 'exports')]);
  });
});

describe('loadConfig: store URLs', () => {
  it('takes the sqlite: prefix as optional', () => {
    expect(loadConfig({ store: 'sqlite:x.db' }, {}, cwd).store).toBe(`sqlite:${join(cwd, 'x.db')}`);
    expect(loadConfig({ store: 'x.db' }, {}, cwd).store).toBe(`sqlite:${join(cwd, 'x.db')}`);
    expect(loadConfig({ store: 'sqlite:/abs/y.db' }, {}, cwd).store).toBe('sqlite:/abs/y.db');
    expect(loadConfig({ store: '/abs/y.db' }, {}, cwd).store).toBe('sqlite:/abs/y.db');
  });

  it('keeps an in-memory store', () => {
    expect(loadConfig({ store: 'sqlite::memory:' }, {}, cwd).store).toBe('sqlite::memory:');
    expect(loadConfig({ store: ':memory:' }, {}, cwd).store).toBe('sqlite::memory:');
  });

  it('keeps postgres URLs as they are', () => {
    const url = 'postgres://petal:secret@db.example:5432/petal';
    expect(loadConfig({ store: url }, {}, cwd).store).toBe(url);
    expect(loadConfig({}, { PETAL_STORE: 'postgresql://db/petal' }, cwd).store).toBe('postgresql://db/petal');
    write('petal.yaml', `store: ${url}\n`);
    expect(loadConfig({}, {}, cwd).store).toBe(url);
  });

  it('rejects an empty sqlite: path', () => {
    const e = configError(() => loadConfig({ store: 'sqlite:' }, {}, cwd));
    expect(e.message).toContain('store');
  });
});

describe('loadConfig: precedence flags > environment > file', () => {
  const FILE = 'store: file.db\nport: 1001\nhost: file.host\nmodules: [file-lm]\nlogLevel: warn\n';
  const ENV = { PETAL_STORE: 'env.db', PETAL_PORT: '1002', PETAL_HOST: 'env.host', PETAL_MODULES: 'env-lm', PETAL_LOG_LEVEL: 'debug' };
  const FLAGS = { store: 'flag.db', port: 1003, host: 'flag.host', modules: ['flag-lm'], logLevel: 'trace' };

  beforeEach(() => {
    mkdirSync(join(cwd, 'conf'));
    writeFileSync(join(cwd, 'conf', 'petal.yaml'), FILE);
  });

  it('file alone', () => {
    const c = loadConfig({ config: 'conf/petal.yaml' }, {}, cwd);
    expect(c.store).toBe(`sqlite:${join(cwd, 'conf', 'file.db')}`);
    expect(c.port).toBe(1001);
    expect(c.host).toBe('file.host');
    expect(c.modules).toEqual([join(cwd, 'conf', 'file-lm')]);
    expect(c.logLevel).toBe('warn');
  });

  it('environment beats the file', () => {
    const c = loadConfig({ config: 'conf/petal.yaml' }, ENV, cwd);
    expect(c.store).toBe(`sqlite:${join(cwd, 'env.db')}`);
    expect(c.port).toBe(1002);
    expect(c.host).toBe('env.host');
    expect(c.modules).toEqual([join(cwd, 'env-lm')]);
    expect(c.logLevel).toBe('debug');
  });

  it('flags beat the environment and the file', () => {
    const c = loadConfig({ config: 'conf/petal.yaml', ...FLAGS }, ENV, cwd);
    expect(c.store).toBe(`sqlite:${join(cwd, 'flag.db')}`);
    expect(c.port).toBe(1003);
    expect(c.host).toBe('flag.host');
    expect(c.modules).toEqual([join(cwd, 'flag-lm')]);
    expect(c.logLevel).toBe('trace');
  });

  it('each setting falls back on its own', () => {
    const c = loadConfig({ config: 'conf/petal.yaml', port: 1003 }, { PETAL_HOST: 'env.host' }, cwd);
    expect(c.port).toBe(1003);
    expect(c.host).toBe('env.host');
    expect(c.logLevel).toBe('warn');
    expect(c.store).toBe(`sqlite:${join(cwd, 'conf', 'file.db')}`);
  });

  it('port 0 from a flag is kept (not taken as missing)', () => {
    expect(loadConfig({ config: 'conf/petal.yaml', port: 0 }, ENV, cwd).port).toBe(0);
    expect(loadConfig({ config: 'conf/petal.yaml' }, { PETAL_PORT: '0' }, cwd).port).toBe(0);
  });
});

describe('loadConfig: read replicas (flags > PETAL_REPLICAS > file)', () => {
  const PG = 'postgres://primary/petal';
  const FILE = `store: ${PG}\nreplicas: [postgres://file-r1/petal, postgres://file-r2/petal]\n`;
  beforeEach(() => { write('petal.yaml', FILE); });

  it('takes the file\'s replicas, and none when nothing names any', () => {
    expect(loadConfig({}, {}, cwd).replicas).toEqual(['postgres://file-r1/petal', 'postgres://file-r2/petal']);
    write('petal.yaml', `store: ${PG}\n`);
    expect(loadConfig({}, {}, cwd).replicas).toBeUndefined();
  });

  it('splits PETAL_REPLICAS on commas, trims, drops empty entries, and beats the file', () => {
    const c = loadConfig({}, { PETAL_REPLICAS: ' postgres://env-r1/petal, ,postgresql://env-r2/petal,' }, cwd);
    expect(c.replicas).toEqual(['postgres://env-r1/petal', 'postgresql://env-r2/petal']);
    // Empty or blank: not set (the file's replicas stay).
    expect(loadConfig({}, { PETAL_REPLICAS: ' ' }, cwd).replicas).toEqual(['postgres://file-r1/petal', 'postgres://file-r2/petal']);
  });

  it('--replica (repeatable) beats the environment and the file', () => {
    const c = loadConfig({ replicas: ['postgres://flag-r1/petal', 'postgres://flag-r2/petal'] }, { PETAL_REPLICAS: 'postgres://env-r1/petal' }, cwd);
    expect(c.replicas).toEqual(['postgres://flag-r1/petal', 'postgres://flag-r2/petal']);
  });

  it('rejects a replica that is not a postgres:// URL, naming where it came from', () => {
    let e = configError(() => loadConfig({}, { PETAL_REPLICAS: 'postgres://ok/petal,mysql://bad' }, cwd));
    expect(e.file).toBe('PETAL_REPLICAS');
    expect(e.reason).toContain('"mysql://bad"');
    e = configError(() => loadConfig({ replicas: ['replica.db'] }, {}, cwd));
    expect(e.file).toBe('--replica');
    expect(e.reason).toContain('expected a postgres:// URL');
  });

  it('rejects replicas for a SQLite store', () => {
    const e = configError(() => loadConfig({ store: 'local.db' }, {}, cwd));
    expect(e.reason).toContain('read replicas need a postgres:// store');
    expect(() => loadConfig({ store: 'local.db', replicas: [] }, {}, cwd)).not.toThrow();
  });
});

describe('loadConfig: other settings', () => {
  it('reads every supported key', () => {
    write('petal.yaml', [
      'namespace: mgnl',
      'baseUrl: https://cdn.example.com/',
      'contextPath: /petal',
      'cors:',
      '  origins: [https://a.example]',
      'onUuidCollision: replace',
      'timeZone: Europe/Zurich',
      'security: { anonymousRoles: [anonymous] }',
      'cache: {}',
      'limits: {}',
      'sites:',
      '  travel:',
      '    locales: [en, de_CH]',
      '    defaultLocale: de_CH',
      '    theme: travel-demo-theme',
      '  plain:',
      '    theme: t',
      '  german:',
      '    defaultLocale: de',
      '',
    ].join('\n'));
    const c = loadConfig({}, {}, cwd);
    expect(c.namespace).toBe('mgnl');
    expect(c.baseUrl).toBe('https://cdn.example.com');
    expect(c.contextPath).toBe('/petal');
    expect(c.corsOrigins).toEqual(['https://a.example']);
    expect(c.onUuidCollision).toBe('replace');
    expect(c.sites).toEqual([
      { name: 'travel', locales: ['en', 'de_CH'], defaultLocale: 'de_CH', theme: 'travel-demo-theme' },
      { name: 'plain', locales: ['en'], defaultLocale: 'en', theme: 't' },
      { name: 'german', locales: ['de'], defaultLocale: 'de' },
    ]);
  });

  it('defaults the default locale to the first locale', () => {
    write('petal.yaml', 'sites:\n  s:\n    locales: [fr, en]\n');
    expect(loadConfig({}, {}, cwd).sites).toEqual([{ name: 's', locales: ['fr', 'en'], defaultLocale: 'fr' }]);
  });
});

describe('loadConfig: errors', () => {
  it('reports bad YAML with the file and the parser\'s reason', () => {
    const file = write('petal.yaml', 'port: 8080\nmodules:\n  - a\n - b\n');
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.file).toBe(file);
    expect(e.message.startsWith(file)).toBe(true);
    expect(e.reason).toMatch(/block sequence|implicit/i);
    expect(e.reason).not.toContain('\n');
  });

  it('gives the line of bad YAML', () => {
    const file = write('petal.yaml', 'port: 8080\nmodules:\n  - a\n - b\n');
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.line).toBe(4);
    expect(e.message.startsWith(`${file}:4: `)).toBe(true);
  });

  it('gives the line of an unclosed flow sequence', () => {
    write('petal.yaml', 'port: 8080\nhost: localhost\nmodules: [a, b\n');
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.line).toBeGreaterThanOrEqual(3);
  });

  it('accepts CORS origins and refuses what is not an origin (*, a path, no scheme), naming the entry', () => {
    write('petal.yaml', 'cors:\n  origins: [http://localhost:3000, https://shop.example.com]\n');
    expect(loadConfig({}, {}, cwd).corsOrigins).toEqual(['http://localhost:3000', 'https://shop.example.com']);
    for (const bad of ['"*"', 'https://example.com/app', 'localhost:3000', 'https://example.com/']) {
      write('petal.yaml', `cors:\n  origins: [http://localhost:3000, ${bad}]\n`);
      const e = configError(() => loadConfig({}, {}, cwd));
      expect(e.reason).toMatch(/cors\.origins\.1/);
      expect(e.reason).toMatch(/must be an origin/);
    }
  });

  it('names an unknown top-level key', () => {
    const file = write('petal.yaml', 'port: 8080\nstroe: x.db\n');
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.file).toBe(file);
    expect(e.message).toContain('stroe');
  });

  // src bug: for an unknown key at the top level zod reports the issue at path [] (the key is only in
  // `issue.keys`), so readConfigFile finds no node and the error has no line. Remove `.fails` once fixed.
  it('gives the line of an unknown top-level key', () => {
    write('petal.yaml', 'port: 8080\nstroe: x.db\n');
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.line).toBe(2);
  });

  it('names an unknown key inside a section, with a line', () => {
    const file = write('petal.yaml', 'port: 8080\nsites:\n  fallback:\n    locales: [en]\n    lcoale: de\n');
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.file).toBe(file);
    expect(e.message).toContain('lcoale');
    expect(e.message).toContain('sites.fallback');
    expect(e.line).toBeDefined();
  });

  // src bug: the line given is that of the enclosing mapping (issue.path points at the object; the key
  // is in issue.keys), here 4 (`locales:`) instead of 5 (`lcoale:`). Remove `.fails` once fixed.
  it('gives the line of the unknown key itself inside a section', () => {
    write('petal.yaml', 'port: 8080\nsites:\n  fallback:\n    locales: [en]\n    lcoale: de\n');
    expect(configError(() => loadConfig({}, {}, cwd)).line).toBe(5);
  });

  it('names a key of the wrong type, with its line', () => {
    const file = write('petal.yaml', 'host: localhost\nport: "x"\n');
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.file).toBe(file);
    expect(e.reason).toMatch(/^port: /);
    expect(e.line).toBe(2);
    expect(e.message.startsWith(`${file}:2: port: `)).toBe(true);
  });

  it('rejects an out-of-range port and a bad enum value', () => {
    write('petal.yaml', 'port: 70000\n');
    expect(configError(() => loadConfig({}, {}, cwd)).reason).toMatch(/^port: /);
    write('petal.yaml', 'logLevel: loud\n');
    expect(configError(() => loadConfig({}, {}, cwd)).reason).toMatch(/^logLevel: /);
    write('petal.yaml', 'contextPath: petal/\n');
    expect(configError(() => loadConfig({}, {}, cwd)).reason).toMatch(/^contextPath: /);
  });

  it('rejects a site whose defaultLocale is not among its locales', () => {
    const file = write('petal.yaml', 'sites:\n  fallback:\n    locales: [en, de]\n    defaultLocale: fr\n');
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.file).toBe(file);
    expect(e.reason).toContain('sites.fallback.defaultLocale');
    expect(e.reason).toContain('fr');
  });

  it('rejects a PETAL_PORT that is not a port number', () => {
    for (const bad of ['abc', '80.5', '-1', '65536']) {
      const e = configError(() => loadConfig({ modules: ['lm'] }, { PETAL_PORT: bad }, cwd));
      expect(e.file).toBe('PETAL_PORT');
      expect(e.message).toContain(JSON.stringify(bad));
    }
  });

  // src bug: Number('') is 0, so an empty (or blank) PETAL_PORT silently means "any free port"
  // instead of being ignored or rejected. Remove `.fails` once fixed.
  it('does not take an empty PETAL_PORT as port 0', () => {
    let port: number | 'error';
    try {
      port = loadConfig({ modules: ['lm'] }, { PETAL_PORT: '' }, cwd).port;
    } catch {
      port = 'error';
    }
    expect(port).not.toBe(0);
  });
});

describe('loadConfig: bounds of petal.yaml', () => {
  it('refuses nested aliases ("billion laughs") with a ConfigError, quickly', () => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const lines = [`x0: &l0 [${keys.map(() => 'lol').join(', ')}]`];
    for (let l = 1; l <= 8; l++) lines.push(`x${l}: &l${l} [${keys.map(() => `*l${l - 1}`).join(', ')}]`);
    const file = write('petal.yaml', `${lines.join('\n')}\n`);
    const e = configError(() => loadConfig({}, {}, cwd));
    expect(e.file).toBe(file);
    expect(e.reason).toMatch(/aliases expand too much \(more than 100 alias uses\)/);
  });

  it('refuses a petal.yaml larger than 4 MiB before reading it', () => {
    write('petal.yaml', `# ${'x'.repeat(4 * 1024 * 1024)}\nport: 8080\n`);
    expect(configError(() => loadConfig({}, {}, cwd)).reason).toMatch(/larger than 4194304 bytes/);
  });

  it('reads imaging.cacheDir (against the file\'s folder) and imaging.cacheMaxBytes, refusing a tiny budget', () => {
    write('conf/petal.yaml', 'imaging:\n  cacheDir: cache/renditions\n  cacheMaxBytes: 2097152\n');
    expect(loadConfig({ config: 'conf/petal.yaml' }, {}, cwd).imaging)
      .toEqual({ transforms: 'presets', presets: {}, cacheDir: join(cwd, 'conf', 'cache', 'renditions'), cacheMaxBytes: 2097152 });
    write('petal.yaml', 'imaging:\n  cacheMaxBytes: 1000\n');
    expect(configError(() => loadConfig({}, {}, cwd)).reason).toMatch(/imaging\.cacheMaxBytes: must be at least 1048576/);
  });

  it('tells someone with the renditions: section of before to move it under imaging:', () => {
    write('petal.yaml', 'port: 1\nrenditions:\n  maxBytes: 2097152\n');
    const err = configError(() => loadConfig({}, {}, cwd));
    expect(err.reason).toMatch(/^renditions: moved under imaging: write imaging\.cacheDir and imaging\.cacheMaxBytes/);
    expect(err.line).toBe(2);
  });

  it('reads imaging.transforms and imaging.presets, defaulting to presets only', () => {
    expect(loadConfig({ config: write('i0.yaml', 'port: 1\n') }, {}, cwd).imaging).toEqual({ transforms: 'presets', presets: {} });
    const c = loadConfig({ config: write('i1.yaml', 'imaging:\n  transforms: free\n  presets:\n    card: { width: 640, height: 480, fit: cover, format: auto, quality: 70 }\n') }, {}, cwd);
    expect(c.imaging).toEqual({ transforms: 'free', presets: { card: { width: 640, height: 480, fit: 'cover', format: 'auto', quality: 70 } } });
  });

  it('refuses a bad preset with the key that is wrong', () => {
    const cases: [string, RegExp][] = [
      ['imaging:\n  presets:\n    card: { width: 5000 }\n', /imaging\.presets\.card\.width: at most 4096/],
      ['imaging:\n  presets:\n    card: { width: 0 }\n', /imaging\.presets\.card\.width: at least 1/],
      ['imaging:\n  presets:\n    card: { height: 1.5 }\n', /imaging\.presets\.card\.height: a whole number/],
      ['imaging:\n  presets:\n    card: { quality: 101 }\n', /imaging\.presets\.card\.quality: at most 100/],
      ['imaging:\n  presets:\n    card: { fit: stretch }\n', /imaging\.presets\.card\.fit: .*cover/],
      ['imaging:\n  presets:\n    card: { format: gif }\n', /imaging\.presets\.card\.format: .*avif/],
      ['imaging:\n  presets:\n    card: { size: 3 }\n', /imaging\.presets\.card: unknown key\(s\) size/],
      ['imaging:\n  presets:\n    card: {}\n', /imaging\.presets\.card: a preset needs at least one of/],
      ['imaging:\n  presets:\n    "a b": { width: 3 }\n', /imaging\.presets\.a b: preset names are letters/],
      ['imaging:\n  transforms: any\n', /imaging\.transforms: .*presets.*free/],
    ];
    for (const [text, reason] of cases) {
      expect(configError(() => loadConfig({ config: write('bad-preset.yaml', text) }, {}, cwd)).message, text).toMatch(reason);
    }
  });
});

describe('loadConfig: the README', () => {
  it('loads the petal.yaml reference of the README as it is written', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration: `petal.yaml`'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    write('petal.yaml', yaml);
    const c = loadConfig({}, {}, cwd);
    expect(c.store).toBe(`sqlite:${join(cwd, 'data', 'petal.db')}`);
    expect(c.imaging).toEqual({
      transforms: 'presets', presets: { card: { width: 640, height: 480, fit: 'cover', format: 'auto' } },
      cacheDir: join(cwd, 'data', 'renditions'), cacheMaxBytes: 1073741824,
    });
  });
});

describe('loadConfig: trustProxy (issue 13 point 6)', () => {
  const load = (text: string) => loadConfig({ config: write(`tp-${Math.random().toString(36).slice(2)}.yaml`, text) }, {}, cwd);
  it('takes true as one hop, a number of hops, or a list of proxy addresses and CIDR ranges', () => {
    expect(load('port: 1\n').trustProxy).toBe(false);
    expect(load('trustProxy: false\n').trustProxy).toBe(false);
    expect(load('trustProxy: true\n').trustProxy).toBe(1);
    expect(load('trustProxy: 2\n').trustProxy).toBe(2);
    expect(load('trustProxy: 0\n').trustProxy).toBe(false);
    expect(load('trustProxy: [10.0.0.0/8, "2001:db8::/32", 192.0.2.7, loopback]\n').trustProxy)
      .toEqual(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7', 'loopback']);
  });

  it('refuses anything else with a clear error and its line', () => {
    for (const bad of ['trustProxy: -1', 'trustProxy: 1.5', 'trustProxy: [10.0.0.0/33]', 'trustProxy: [proxy.example.com]', 'trustProxy: []', 'trustProxy: "10.0.0.1"']) {
      const err = configError(() => load(`port: 1\n${bad}\n`));
      expect(err.message, bad).toMatch(/trustProxy/);
      expect(err.message, bad).toMatch(/proxy hops|IP address|CIDR|expected/);
    }
  });
});

describe('loadConfig: security login limits and ACL cache (issue 13 points 2 and 3)', () => {
  it('defaults and validates security.login and security.aclCacheMaxBytes', () => {
    const c = loadConfig({ config: write('s1.yaml', 'port: 1\n') }, {}, cwd);
    expect(c.security.login).toEqual({ maxConcurrentHashes: 2, maxQueuedHashes: 16 });
    expect(c.security.aclCacheMaxBytes).toBe(16 * 1024 * 1024);
    const set = loadConfig({ config: write('s2.yaml', 'security:\n  login: { maxConcurrentHashes: 4, maxQueuedHashes: 0 }\n  aclCacheMaxBytes: 1048576\n') }, {}, cwd);
    expect(set.security.login).toEqual({ maxConcurrentHashes: 4, maxQueuedHashes: 0 });
    expect(set.security.aclCacheMaxBytes).toBe(1048576);
    expect(configError(() => loadConfig({ config: write('s3.yaml', 'security:\n  login: { maxConcurrentHashes: 0 }\n') }, {}, cwd)).message)
      .toMatch(/security\.login\.maxConcurrentHashes/);
    expect(configError(() => loadConfig({ config: write('s4.yaml', 'security:\n  aclCacheMaxBytes: -5\n') }, {}, cwd)).message)
      .toMatch(/security\.aclCacheMaxBytes/);
  });
});
