// /.rest/template-annotations/v1<page>: the page editor's comments for a travel-spa page, made from its
// light modules' templates (the original's front-end helpers request them in preview mode).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const SPA = join(CORPORA, 'travel-spa', 'magnolia');

// Skipped where the original CMS's corpora are absent (PETAL_CORPORA; test/helpers/corpora.ts warns); CI beside ../shared runs it.
describe.skipIf(!CORPORA_AVAILABLE)('template annotations of a travel-spa page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      contentPaths: [join(SPA, '_dev')], moduleRoots: [join(SPA, 'light-modules')],
      security: {
        roles: {
          anonymous: {
            uriPermissions: [{ path: '/*', permission: 'getAndPost' }],
            workspacePermissions: {
              '*': [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }],
              website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }, { path: '/react-minimal/extras/01', permission: 'deny' }],
            },
          },
        },
      },
    });
  }, 120_000);
  afterAll(async () => t?.close());

  it('maps the page, each area and each component below it (not its child pages) to its comment', async () => {
    const { status, body, headers } = await getJson(t.app, '/.rest/template-annotations/v1/react-minimal?lang=en&mgnlPreview=true');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(body).sort()).toEqual([
      '/react-minimal', '/react-minimal/extras', '/react-minimal/extras/0', '/react-minimal/extras/00',
      '/react-minimal/extras/00/items', '/react-minimal/extras/00/items/0', '/react-minimal/extras/00/items/00',
      '/react-minimal/extras/00/items/01', '/react-minimal/main', '/react-minimal/main/00', '/react-minimal/main/01',
    ]);
    expect(body['/react-minimal']).toBe('cms:page content="website:/react-minimal" dialog="spa-lm:pages/basic"');
    expect(body['/react-minimal/main']).toBe('cms:area name="main" content="website:/react-minimal/main"'
      + ' availableComponents="spa-lm:components/headline,spa-lm:components/image,spa-lm:components/paragraph,spa-lm:components/expander,spa-lm:components/list"'
      + ' type="list" label="Main Area" inherit="false" optional="false" createAreaNode="true" showAddButton="true"'
      + ' showNewComponentArea="true" activationStatus="2"');
    expect(body['/react-minimal/main/00']).toBe('cms:component content="website:/react-minimal/main/00" dialog="spa-lm:components/image" label="Image" activationStatus="2"');
    // A component's own areas take their definition from the component's template.
    expect(body['/react-minimal/extras/00/items']).toContain('availableComponents="spa-lm:components/listItem" type="list" label="List Items Area"');
  });

  it('leaves out what the caller may not read', async () => {
    const { body } = await getJson(t.app, '/.rest/template-annotations/v1/react-minimal');
    expect(body['/react-minimal/extras/01']).toBeUndefined();
  });

  it('answers 404 for a path that is no page', async () => {
    expect((await getJson(t.app, '/.rest/template-annotations/v1/react-minimal/main')).status).toBe(404);
    expect((await getJson(t.app, '/.rest/template-annotations/v1/nowhere')).body.error.code).toBe('pathNotFound');
  });
});
