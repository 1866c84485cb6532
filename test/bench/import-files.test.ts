// Smoke test of bench/import-files.ts in its tiny mode: the generated exports import whole through both
// routes (the bench itself fails when an importer reports another node count), and the figures are there.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main, totalNodes } from '../../bench/import-files.js';

const dir = mkdtempSync(join(tmpdir(), 'petal-import-files-smoke-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench/import-files.ts --nodes 2000', () => {
  it('imports the YAML and the XML export with petal import and POST /.rest/import/v1', async () => {
    // dist/ is built by test/global-setup.ts.
    const results = await main(['--nodes', '2000', '--dir', dir, '--json', '--no-build']);
    expect(results.map((r) => `${r.format} ${r.route}`)).toEqual(['yaml cli', 'yaml http', 'xml cli', 'xml http']);
    for (const r of results) {
      expect(r.nodes).toBe(totalNodes(2000));
      expect(r.nodes).toBe(2003);
      expect(r.fileMb).toBeGreaterThan(0.5);
      expect(r.peakRssMb).toBeGreaterThan(10);
    }
  });
});
