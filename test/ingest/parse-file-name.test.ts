import { describe, expect, it } from 'vitest';
import { exportFileSegments, parseExportFileName } from '../../src/ingest/parse-file-name.js';
import { ImportError } from '../../src/ingest/import-error.js';

describe('parseExportFileName', () => {
  it('takes the workspace from the first segment and the parent path from the middle ones', () => {
    expect(parseExportFileName('website.travel.about.yaml')).toEqual({ workspace: 'website', parentPath: '/travel' });
    expect(parseExportFileName('/some/dir/website.react-minimal.yaml')).toEqual({ workspace: 'website', parentPath: '/' });
    expect(parseExportFileName('dam.tours.shark_brian_warrick_0824.xml')).toEqual({ workspace: 'dam', parentPath: '/tours' });
    expect(parseExportFileName('website.a.b.c.d.yaml')).toEqual({ workspace: 'website', parentPath: '/a/b/c' });
  });

  it('reads a single segment as a whole-workspace export', () => {
    expect(parseExportFileName('category.xml')).toEqual({ workspace: 'category', parentPath: '/' });
    expect(exportFileSegments('category.xml')).toEqual(['category']);
  });

  it('rejects empty segments', () => {
    for (const name of ['website..about.yaml', '.website.yaml', 'website.about..yaml', '.yaml']) {
      expect(() => parseExportFileName(name), name).toThrow(ImportError);
    }
  });
});

describe('ImportError', () => {
  it('formats file, line and reason', () => {
    const withLine = new ImportError('a.yaml', 3, 'bad');
    expect(withLine.message).toBe('a.yaml:3: bad');
    expect(withLine).toMatchObject({ file: 'a.yaml', line: 3, reason: 'bad' });
    expect(new ImportError('a.yaml', undefined, 'bad').message).toBe('a.yaml: bad');
  });
});
