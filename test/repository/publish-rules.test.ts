// What a non-recursive publish takes along: a page's content (areas, components, resources, variants,
// metadata, and their sub types, also configured ones), never a subpage or a folder.
import { describe, expect, it } from 'vitest';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { takenAlongBy } from '../../src/repository/publish-rules.js';

describe('takenAlongBy', () => {
  const takenAlong = takenAlongBy(new NodeTypeRegistry({ 'acme:teaser': ['cms:component'], 'acme:landing': ['cms:page'] }));

  it('takes content nodes, resources, variants and metadata, with their sub types', () => {
    for (const t of ['cms:contentNode', 'cms:area', 'cms:component', 'cms:block', 'nt:resource', 'cms:resource', 'cms:componentVariants', 'cms:metaData', 'acme:teaser']) {
      expect(takenAlong(t), t).toBe(true);
    }
  });

  it('leaves pages, folders and other content to their own publication', () => {
    for (const t of ['cms:page', 'acme:landing', 'cms:folder', 'nt:folder', 'cms:asset', 'nt:unstructured', 'x:unknown']) {
      expect(takenAlong(t), t).toBe(false);
    }
  });
});
