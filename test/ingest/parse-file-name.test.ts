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

  it('rejects a workspace outside the one pattern, and parent segments that are no node names (the folders an import creates)', () => {
    for (const name of ['WEBSITE.about.yaml', 'web site.about.yaml', '*.about.yaml', 'website.a|b.about.yaml', 'website.a*.about.yaml', 'website.x\u0001.about.yaml']) {
      expect(() => parseExportFileName(name), name).toThrow(ImportError);
    }
    // The last segment is only a label: the node's name comes from the content.
    expect(parseExportFileName('website.travel.a|b.yaml')).toEqual({ workspace: 'website', parentPath: '/travel' });
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
