import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { FileRecords, RECORDED_PATHS_MAX } from '../../src/ingest/file-records.js';

const BASE = '/cfg';

function feed(records: FileRecords, file: string, paths: readonly string[]): void {
  const hash = records.hasher(file);
  const step = records.step({ source: file, workspace: 'website' });
  hash(Buffer.from('first chunk;'));
  void step([], paths);
  hash(Buffer.from('second chunk'));
}

describe('FileRecords (petal import records its files as the start-time import does)', () => {
  it('records a file by its path under the config folder, the hash of all its bytes and its paths', () => {
    const records = new FileRecords(BASE);
    feed(records, '/cfg/content/website.a.yaml', ['/a', '/a/b']);
    expect(records.records()).toEqual({
      files: [{
        path: 'content/website.a.yaml',
        sha256: createHash('sha256').update('first chunk;second chunk').digest('hex'),
        nodes: { website: ['/a', '/a/b'] },
      }],
    });
    expect(records.warnings).toEqual([]);
  });

  it(`leaves out a file of more than ${RECORDED_PATHS_MAX} nodes, with a warning, and records the others`, () => {
    const records = new FileRecords(BASE);
    const many = Array.from({ length: RECORDED_PATHS_MAX + 1 }, (_, i) => `/big/n${i}`);
    feed(records, '/cfg/website.big.yaml', many);
    feed(records, '/cfg/website.small.yaml', ['/small']);
    expect(records.records()?.files.map((f) => f.path)).toEqual(['website.small.yaml']);
    expect(records.warnings).toEqual([expect.stringMatching(/^\/cfg\/website\.big\.yaml: not recorded for the start-time import/)]);
  });
});
