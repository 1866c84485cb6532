// The streamed YAML reader holds a bounded part of an export: a generated 200,000-product export
// (about 110 MB, 200,201 nodes) streams through it under a 256 MB heap. The whole-document reader
// needed about 25 KB of heap per node (issue 31), so it could not.
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('YamlExportReader memory', () => {
  it('streams a 200,000-product export under --max-old-space-size=256', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petal-yaml-mem-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const child = spawn(process.execPath, [
      '--max-old-space-size=256', '--import', 'tsx', join(import.meta.dirname, 'yaml-memory-child.ts'), dir, '200000',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString('utf8'); });
    onTestFinished(() => { if (child.exitCode === null) child.kill(); });
    const [code] = await once(child, 'exit');
    expect({ code, err: err.slice(-2000) }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out)).toEqual({ nodes: 200_201, properties: 200_000 * 12 + 200 * 3 + 3, maxDepth: 3, open: 0 });
  }, 300_000);
});
