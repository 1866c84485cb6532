// Links written by generateLink and rich text: context path, site mappings (longest first), extension.
import { describe, expect, it } from 'vitest';
import type { LinkConfig } from '../../src/config/link-config.js';
import { assetLink, completeUrl, pageLink, renditionLink } from '../../src/delivery/links.js';

const c: LinkConfig = {
  contextPath: '/magnoliaPublic', extension: '.html', baseUrl: 'https://www.example.com',
  mappings: [{ from: '/travel/de', to: '/de' }, { from: '/travel', to: '/' }],
};

describe('links', () => {
  it('maps site paths, longest mapping first, and adds the extension', () => {
    expect(pageLink(c, '/travel/about')).toBe('/magnoliaPublic/about.html');
    expect(pageLink(c, '/travel/de/about')).toBe('/magnoliaPublic/de/about.html');
    expect(pageLink(c, '/travel')).toBe('/magnoliaPublic/');
    expect(pageLink(c, '/other/page')).toBe('/magnoliaPublic/other/page.html');
    expect(pageLink(c, '/travelogue')).toBe('/magnoliaPublic/travelogue.html'); // not under /travel
    expect(pageLink(c, '/travel/a b')).toBe('/magnoliaPublic/a%20b.html');
  });

  it('links assets and renditions under the context path, and completes URLs on the base URL', () => {
    expect(assetLink(c, 'u-1', 'a b.jpg')).toBe('/magnoliaPublic/dam/jcr:u-1/a%20b.jpg');
    expect(renditionLink(c, 'theme', '960', '/pics/a', 'a.jpg')).toBe('/magnoliaPublic/.imaging/mte/theme/960/dam/pics/a/jcr:content/a.jpg');
    expect(completeUrl(c, '/x')).toBe('https://www.example.com/x');
    expect(completeUrl({ ...c, baseUrl: undefined }, '/x')).toBe('/x');
  });
});
