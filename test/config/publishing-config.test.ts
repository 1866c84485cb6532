// petal.yaml `publishing:` (issue 17): off unless `enabled: true`; defaults and checks of the preview path; other keys are refused.
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
  it('is off unless enabled, with the preview defaults when on', () => {
    expect(configOf('port: 1\n').publishing).toBeUndefined();
    expect(configOf('publishing: {}\n').publishing).toBeUndefined();
    expect(configOf('publishing: { enabled: false }\n').publishing).toBeUndefined();
    expect(configOf('publishing: { enabled: true }\n').publishing).toEqual({
      previewContextPath: '/preview', previewRoles: ['superuser', 'editor'], scheduleIntervalMs: 2000, scheduleHorizonDays: 366,
    });
    expect(configOf('contextPath: /magnoliaPublic\npublishing: { enabled: true, preview: { contextPath: /magnoliaAuthor, roles: [anonymous] } }\n').publishing)
      .toMatchObject({ previewContextPath: '/magnoliaAuthor', previewRoles: ['anonymous'] });
  });

  it('refuses a preview path that is the public one, inside or around it, or hides Petal\'s routes', () => {
    expect(() => configOf('contextPath: /site\npublishing: { enabled: true, preview: { contextPath: /site } }\n')).toThrow(/preview\.contextPath/);
    expect(() => configOf('contextPath: /site\npublishing: { enabled: true, preview: { contextPath: /site/preview } }\n')).toThrow(/preview\.contextPath/);
    expect(() => configOf('contextPath: /a/b\npublishing: { enabled: true, preview: { contextPath: /a } }\n')).toThrow(/preview\.contextPath/);
    expect(() => configOf('publishing: { enabled: true, preview: { contextPath: /dam } }\n')).toThrow(/preview\.contextPath/);
    expect(() => configOf('publishing: { enabled: true, preview: { contextPath: /.rest } }\n')).toThrow(/preview\.contextPath/);
    expect(() => configOf('publishing: { enabled: true, preview: { contextPath: preview } }\n')).toThrow(/preview\.contextPath/);
  });

  it('refuses other keys and values', () => {
    expect(() => configOf('publishing: { enable: true }\n')).toThrow(/publishing/);
    expect(() => configOf('publishing: { enabled: yes please }\n')).toThrow(/publishing\.enabled/);
    for (const days of [0, 1.5, 36_601, '"30"']) {
      expect(() => configOf(`publishing: { enabled: true, scheduleHorizonDays: ${days} }\n`), String(days)).toThrow(/publishing\.scheduleHorizonDays/);
    }
    expect(configOf('publishing: { enabled: true, scheduleHorizonDays: 30 }\n').publishing?.scheduleHorizonDays).toBe(30);
  });
});
