// Tests for delivery/endpoint-definition.ts: defaults, pages presets, aliases, validation messages, warnings.
import { describe, expect, it } from 'vitest';
import {
  parseEndpointDefinition,
  type EndpointDefinition,
  type ResolverDefinition,
} from '../../src/delivery/endpoint-definition.js';
import { endpointKindOf, resolverKindOf } from '../../src/delivery/type-aliases.js';

const CTX = { source: '/lm/mod/restEndpoints/delivery/tours_v1.yaml', module: 'mod', relativeFile: 'delivery/tours_v1.yaml' };

function parseOk(raw: unknown): { definition: EndpointDefinition; warnings: string[] } {
  const result = parseEndpointDefinition(raw, CTX);
  if (!result.ok) throw new Error(`expected success, got: ${result.reason}`);
  return result;
}

function reasonOf(raw: unknown): string {
  const result = parseEndpointDefinition(raw, CTX);
  if (result.ok) throw new Error('expected a failure');
  return result.reason;
}

function resolverOf(referenceResolver: Record<string, unknown>): ResolverDefinition {
  const { definition } = parseOk({ ...DELIVERY, references: [{ propertyName: 'p', referenceResolver }] });
  return definition.references[0]!.resolver;
}

const DELIVERY = { $type: 'jcrDeliveryEndpoint_v2', workspace: 'tours' };

describe('parseEndpointDefinition: defaults', () => {
  it('applies the documented defaults to a minimal delivery endpoint', () => {
    const { definition, warnings } = parseOk(DELIVERY);
    expect(warnings).toEqual([]);
    expect(definition).toEqual({
      endpointPath: '/delivery/tours/v1',
      source: CTX.source,
      module: 'mod',
      kind: 'delivery',
      workspace: 'tours',
      rootPath: '/',
      depth: 0,
      strict: false,
      limit: 10,
      maxLimit: 100,
      references: [],
      referenceDepth: 1,
      referenceRepeat: false,
      includeSystemProperties: false,
      bypassWorkspaceAcls: false,
      personalized: false,
    });
  });

  it('returns a frozen definition', () => {
    const { definition } = parseOk({ ...DELIVERY, nodeTypes: ['mgnl:page'] });
    expect(Object.isFrozen(definition)).toBe(true);
    expect(Object.isFrozen(definition.nodeTypes)).toBe(true);
  });

  it('takes every property of the table', () => {
    const { definition, warnings } = parseOk({
      class: 'info.magnolia.rest.delivery.jcr.v2.JcrDeliveryEndpointDefinition',
      workspace: 'website',
      rootPath: '/travel',
      properties: ['title'],
      nodeTypes: ['mgnl:page'],
      childNodeTypes: ['mgnl:area'],
      depth: 3,
      strict: true,
      limit: 5,
      maxLimit: 50,
      referenceDepth: 2,
      referenceRepeat: true,
      includeSystemProperties: true,
      systemProperties: ['mgnl:created'],
      bypassWorkspaceAcls: true,
      personalized: true,
      timeToLive: 60,
    });
    expect(warnings).toEqual([]);
    expect(definition).toMatchObject({
      rootPath: '/travel',
      properties: ['title'],
      nodeTypes: ['cms:page'],
      childNodeTypes: ['cms:area'],
      depth: 3,
      strict: true,
      limit: 5,
      maxLimit: 50,
      referenceDepth: 2,
      referenceRepeat: true,
      includeSystemProperties: true,
      systemProperties: ['cms:created'],
      bypassWorkspaceAcls: true,
      personalized: true,
      timeToLive: 60,
    });
  });

  it.each([
    ['/travel', '/travel'],
    ['/travel/', '/travel'],
    ['travel', '/travel'],
    ['/', '/'],
    ['', '/'],
  ])('normalises rootPath %j to %j', (rootPath, expected) => {
    expect(parseOk({ ...DELIVERY, rootPath }).definition.rootPath).toBe(expected);
  });

  it('treats a key without a value as absent', () => {
    const { definition } = parseOk({ ...DELIVERY, depth: null, references: null, nodeTypes: null });
    expect(definition.depth).toBe(0);
    expect(definition.references).toEqual([]);
    expect(definition.nodeTypes).toBeUndefined();
  });

  it('accepts a single string as a one-element list, and numbers as names', () => {
    const { definition } = parseOk({
      ...DELIVERY,
      nodeTypes: 'mgnl:page',
      references: [{ propertyName: 'image', referenceResolver: { $type: 'assetReferenceResolver', assetRenditions: [240, '960'] } }],
    });
    expect(definition.nodeTypes).toEqual(['cms:page']);
    expect(definition.references[0]!.resolver).toMatchObject({ assetRenditions: ['240', '960'] });
  });

  it('uses an explicit endpointPath instead of the derived one', () => {
    expect(parseOk({ ...DELIVERY, endpointPath: '/api/tours/' }).definition.endpointPath).toBe('/api/tours');
  });

  it('ignores implementationClass without a warning', () => {
    expect(parseOk({ ...DELIVERY, implementationClass: 'com.example.Endpoint' }).warnings).toEqual([]);
  });
});

describe('parseEndpointDefinition: pages presets', () => {
  it.each(['jcrPagesDeliveryEndpoint_v2', 'pagesDeliveryEndpoint_v2'])('%s gets the pages presets', ($type) => {
    const { definition } = parseOk({ $type });
    expect(definition).toMatchObject({
      kind: 'pages',
      workspace: 'website',
      depth: 100,
      personalized: true,
      systemProperties: ['cms:template'],
      nodeTypes: ['cms:page', 'cms:component', 'cms:area'],
      childNodeTypes: ['cms:area', 'cms:component'],
    });
  });

  it('lets every definition value override a preset', () => {
    const { definition } = parseOk({
      $type: 'jcrPagesDeliveryEndpoint_v2',
      workspace: 'pages',
      depth: 0,
      personalized: false,
      systemProperties: [],
      nodeTypes: ['mgnl:page'],
      childNodeTypes: ['mgnl:area', 'mgnl:component', 'mgnl:contentNode'],
    });
    expect(definition).toMatchObject({
      workspace: 'pages',
      depth: 0,
      personalized: false,
      systemProperties: [],
      nodeTypes: ['cms:page'],
      childNodeTypes: ['cms:area', 'cms:component', 'cms:contentNode'],
    });
  });

  it('gives a plain delivery endpoint no presets', () => {
    const { definition } = parseOk(DELIVERY);
    expect(definition.nodeTypes).toBeUndefined();
    expect(definition.childNodeTypes).toBeUndefined();
    expect(definition.systemProperties).toBeUndefined();
  });
});

describe('parseEndpointDefinition: aliases', () => {
  it.each([
    ['$type', 'jcrDeliveryEndpoint_v2', 'delivery'],
    ['$type', 'deliveryEndpoint_v2', 'delivery'],
    ['class', 'info.magnolia.rest.delivery.jcr.v2.JcrDeliveryEndpointDefinition', 'delivery'],
    ['class', 'info.magnolia.rest.delivery.norsu.NorsuDeliveryEndpointDefinition', 'delivery'],
    ['$type', 'jcrPagesDeliveryEndpoint_v2', 'pages'],
    ['$type', 'pagesDeliveryEndpoint_v2', 'pages'],
    ['class', 'info.magnolia.rest.delivery.jcr.v2.JcrPagesDeliveryEndpointDefinition', 'pages'],
    ['class', 'info.magnolia.pages.rest.delivery.jcr.v2.JcrPagesDeliveryEndpointDefinition', 'pages'],
  ])('%s %s → %s', (key, name, kind) => {
    expect(endpointKindOf(name)).toBe(kind);
    expect(parseOk({ [key]: name, workspace: 'w' }).definition.kind).toBe(kind);
  });

  it.each([
    ['jcrReferenceResolver', 'jcrReferenceResolver'],
    ['info.magnolia.rest.reference.jcr.JcrReferenceResolverDefinition', 'jcrReferenceResolver'],
    ['norsuReferenceResolver', 'jcrReferenceResolver'],
    ['assetReferenceResolver', 'assetReferenceResolver'],
    ['info.magnolia.rest.reference.dam.AssetReferenceResolverDefinition', 'assetReferenceResolver'],
    ['richTextLinkReferenceResolver', 'richTextLinkReferenceResolver'],
    ['info.magnolia.rest.reference.richtext.RichTextLinkReferenceResolverDefinition', 'richTextLinkReferenceResolver'],
  ])('resolver %s → %s', (name, kind) => {
    expect(resolverKindOf(name)).toBe(kind);
    const key = name.includes('.') ? 'class' : '$type';
    expect(resolverOf({ [key]: name, targetWorkspace: 'w' }).kind).toBe(kind);
  });

  it('returns undefined for unknown names', () => {
    expect(endpointKindOf('fooEndpoint')).toBeUndefined();
    expect(resolverKindOf('pageReferenceResolver')).toBeUndefined();
  });

  it('accepts $type and class together when they agree', () => {
    const raw = { ...DELIVERY, class: 'info.magnolia.rest.delivery.jcr.v2.JcrDeliveryEndpointDefinition' };
    expect(parseOk(raw).definition.kind).toBe('delivery');
  });
});

describe('parseEndpointDefinition: resolvers', () => {
  it('applies the jcrReferenceResolver defaults', () => {
    expect(resolverOf({ $type: 'jcrReferenceResolver', targetWorkspace: 'category' })).toEqual({
      kind: 'jcrReferenceResolver',
      targetWorkspace: 'category',
      expand: true,
      generateLink: false,
      depthInReferencedNode: 1,
    });
  });

  it('applies the assetReferenceResolver defaults', () => {
    expect(resolverOf({ $type: 'assetReferenceResolver' })).toEqual({
      kind: 'assetReferenceResolver',
      expand: true,
      includeDownloadLink: true,
      includeAssetMetadata: true,
    });
  });

  it('applies the richTextLinkReferenceResolver default', () => {
    expect(resolverOf({ $type: 'richTextLinkReferenceResolver' })).toEqual({
      kind: 'richTextLinkReferenceResolver',
      completeUrl: true,
    });
  });

  it('takes every resolver property', () => {
    expect(
      resolverOf({
        $type: 'jcrReferenceResolver',
        targetWorkspace: 'tours',
        expand: false,
        generateLink: true,
        depthInReferencedNode: 3,
        properties: ['name', 'mgnl:created'],
        excludeProperties: 'body',
      }),
    ).toEqual({
      kind: 'jcrReferenceResolver',
      targetWorkspace: 'tours',
      expand: false,
      generateLink: true,
      depthInReferencedNode: 3,
      properties: ['name', 'cms:created'],
      excludeProperties: ['body'],
    });
  });

  it('keeps name and canonical nodeType of a reference', () => {
    const { definition } = parseOk({
      ...DELIVERY,
      references: [
        { name: 'img', nodeType: 'mgnl:component', propertyName: 'image', referenceResolver: { $type: 'assetReferenceResolver' } },
      ],
    });
    expect(definition.references[0]).toMatchObject({ name: 'img', nodeType: 'cms:component', propertyName: 'image' });
  });

  it('accepts references as a map of named entries', () => {
    const { definition } = parseOk({
      ...DELIVERY,
      references: { tourTypes: { propertyName: 'tourTypes', referenceResolver: { $type: 'jcrReferenceResolver', targetWorkspace: 'category' } } },
    });
    expect(definition.references).toHaveLength(1);
    expect(definition.references[0]).toMatchObject({ name: 'tourTypes', propertyName: 'tourTypes' });
  });
});

describe('parseEndpointDefinition: validation errors name the property', () => {
  it('reports a wrong type with the value given', () => {
    expect(reasonOf({ ...DELIVERY, depth: 'ten' })).toBe('depth: expected a non-negative integer, got "ten"');
  });

  const ref = (referenceResolver: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    ...DELIVERY,
    references: [{ propertyName: 'p', referenceResolver, ...extra }],
  });

  it.each<[string, unknown, RegExp]>([
    ['not a map', ['a'], /^definition: expected an endpoint definition/],
    ['no $type or class', { workspace: 'w' }, /^\$type: required unless class is set$/],
    ['$type not a string', { $type: 5, workspace: 'w' }, /^\$type: expected a string, got 5/],
    ['unknown $type', { $type: 'fooEndpoint_v2', workspace: 'w' }, /^\$type: unknown endpoint type "fooEndpoint_v2"/],
    ['unknown class', { class: 'com.example.Foo', workspace: 'w' }, /^class: unknown endpoint type class "com.example.Foo"/],
    [
      '$type and class disagree',
      { ...DELIVERY, class: 'info.magnolia.rest.delivery.jcr.v2.JcrPagesDeliveryEndpointDefinition' },
      /^class: .* contradicts \$type/,
    ],
    ['workspace missing', { $type: 'jcrDeliveryEndpoint_v2' }, /^workspace: required$/],
    ['workspace not a string', { ...DELIVERY, workspace: ['a'] }, /^workspace: expected a string, got \["a"\]/],
    ['rootPath not a string', { ...DELIVERY, rootPath: 3 }, /^rootPath: expected a string/],
    ['properties not a list', { ...DELIVERY, properties: { a: 1 } }, /^properties: expected a list of strings/],
    ['excludeProperties not a list', { ...DELIVERY, excludeProperties: true }, /^excludeProperties: expected a list of strings/],
    ['nodeTypes with a map', { ...DELIVERY, nodeTypes: [{ a: 1 }] }, /^nodeTypes: expected a list of strings/],
    ['childNodeTypes not a list', { ...DELIVERY, childNodeTypes: false }, /^childNodeTypes: expected a list of strings/],
    ['systemProperties not a list', { ...DELIVERY, systemProperties: { x: 1 } }, /^systemProperties: expected a list/],
    ['depth negative', { ...DELIVERY, depth: -1 }, /^depth: expected a non-negative integer, got -1$/],
    ['depth fractional', { ...DELIVERY, depth: 1.5 }, /^depth: expected a non-negative integer, got 1.5$/],
    ['strict not a boolean', { ...DELIVERY, strict: 'yes' }, /^strict: expected a boolean/],
    ['limit 0', { ...DELIVERY, limit: 0 }, /^limit: expected an integer of at least 1, got 0$/],
    ['maxLimit 0', { ...DELIVERY, maxLimit: 0 }, /^maxLimit: expected an integer of at least 1, got 0$/],
    ['referenceDepth negative', { ...DELIVERY, referenceDepth: -2 }, /^referenceDepth: expected a non-negative integer/],
    ['referenceRepeat not a boolean', { ...DELIVERY, referenceRepeat: 1 }, /^referenceRepeat: expected a boolean/],
    ['includeSystemProperties', { ...DELIVERY, includeSystemProperties: 'true' }, /^includeSystemProperties: expected a boolean/],
    ['bypassWorkspaceAcls', { ...DELIVERY, bypassWorkspaceAcls: 'x' }, /^bypassWorkspaceAcls: expected a boolean/],
    ['personalized', { ...DELIVERY, personalized: 0 }, /^personalized: expected a boolean/],
    ['timeToLive negative', { ...DELIVERY, timeToLive: -5 }, /^timeToLive: expected a non-negative integer/],
    ['enabled not a boolean', { ...DELIVERY, enabled: 'nope' }, /^enabled: expected a boolean/],
    ['endpointPath without /', { ...DELIVERY, endpointPath: 'delivery/x' }, /^endpointPath: expected a path starting with "\/"/],
    ['endpointPath with /.rest', { ...DELIVERY, endpointPath: '/.rest/delivery/x' }, /^endpointPath: give the path without the \/\.rest prefix/],
    ['references not a list', { ...DELIVERY, references: 'image' }, /^references: expected a list of reference definitions/],
    ['reference not a map', { ...DELIVERY, references: ['image'] }, /^references\[0\]: expected a reference definition/],
    ['propertyName missing', { ...DELIVERY, references: [{ referenceResolver: { $type: 'assetReferenceResolver' } }] }, /^references\[0\]\.propertyName: required$/],
    ['referenceResolver missing', { ...DELIVERY, references: [{ propertyName: 'p' }] }, /^references\[0\]\.referenceResolver: required$/],
    ['referenceResolver not a map', ref('assetReferenceResolver'), /^references\[0\]\.referenceResolver: expected a resolver definition/],
    ['resolver without $type', ref({ targetWorkspace: 'w' }), /^references\[0\]\.referenceResolver\.\$type: required unless class is set$/],
    ['unknown resolver', ref({ $type: 'pageReferenceResolver' }), /^references\[0\]\.referenceResolver\.\$type: unknown reference resolver "pageReferenceResolver"/],
    ['targetWorkspace missing', ref({ $type: 'jcrReferenceResolver' }), /^references\[0\]\.referenceResolver\.targetWorkspace: required$/],
    ['expand not a boolean', ref({ $type: 'jcrReferenceResolver', targetWorkspace: 'w', expand: 'no' }), /referenceResolver\.expand: expected a boolean/],
    ['generateLink', ref({ $type: 'jcrReferenceResolver', targetWorkspace: 'w', generateLink: 1 }), /referenceResolver\.generateLink: expected a boolean/],
    [
      'depthInReferencedNode',
      ref({ $type: 'jcrReferenceResolver', targetWorkspace: 'w', depthInReferencedNode: -1 }),
      /referenceResolver\.depthInReferencedNode: expected a non-negative integer/,
    ],
    ['includeDownloadLink', ref({ $type: 'assetReferenceResolver', includeDownloadLink: 'no' }), /referenceResolver\.includeDownloadLink: expected a boolean/],
    ['includeAssetMetadata', ref({ $type: 'assetReferenceResolver', includeAssetMetadata: 'no' }), /referenceResolver\.includeAssetMetadata: expected a boolean/],
    ['assetRenditions', ref({ $type: 'assetReferenceResolver', assetRenditions: { a: 1 } }), /referenceResolver\.assetRenditions: expected a list of strings/],
    ['completeUrl', ref({ $type: 'richTextLinkReferenceResolver', completeUrl: 'yes' }), /referenceResolver\.completeUrl: expected a boolean/],
    ['reference name', ref({ $type: 'assetReferenceResolver' }, { name: 5 }), /^references\[0\]\.name: expected a string/],
    ['reference nodeType', ref({ $type: 'assetReferenceResolver' }, { nodeType: ['a'] }), /^references\[0\]\.nodeType: expected a string/],
  ])('%s', (_label, raw, expected) => {
    expect(reasonOf(raw)).toMatch(expected);
  });

  it('gives the path of the first fault for the loader to find its line', () => {
    const result = parseEndpointDefinition({ ...DELIVERY, references: [{ propertyName: 'p', referenceResolver: { $type: 'jcrReferenceResolver' } }] }, CTX);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.path).toEqual(['references', 0, 'referenceResolver', 'targetWorkspace']);
  });
});

describe('parseEndpointDefinition: warnings', () => {
  it('reports unknown keys at every level as warnings, not errors', () => {
    const { warnings } = parseOk({
      ...DELIVERY,
      cacheable: true,
      references: [
        { propertyName: 'p', colour: 'red', referenceResolver: { $type: 'assetReferenceResolver', targetWorkspace: 'dam' } },
      ],
    });
    expect(warnings).toEqual([
      'cacheable: unknown property, ignored',
      'references[0].colour: unknown property, ignored',
      'references[0].referenceResolver.targetWorkspace: unknown property, ignored',
    ]);
  });

  it('warns when limit is above maxLimit and when both property lists are set', () => {
    const { warnings } = parseOk({ ...DELIVERY, limit: 200, properties: ['a'], excludeProperties: ['b'] });
    expect(warnings).toEqual([
      'limit: 200 is above maxLimit 100; pages are capped at 100',
      'excludeProperties: ignored because properties is also set',
    ]);
  });
});

describe('parseEndpointDefinition: canonical names', () => {
  it('maps mgnl: to cms: in every name list and in reference node types, and leaves others alone', () => {
    const { definition } = parseOk({
      ...DELIVERY,
      nodeTypes: ['mgnl:page', 'nt:folder'],
      childNodeTypes: ['mgnl:area'],
      systemProperties: ['mgnl:template', 'jcr:created'],
      properties: ['mgnl:lastModified', 'title'],
      excludeProperties: ['mgnl:created'],
      references: [{ nodeType: 'mgnl:component', propertyName: 'link', referenceResolver: { $type: 'assetReferenceResolver' } }],
    });
    expect(definition.nodeTypes).toEqual(['cms:page', 'nt:folder']);
    expect(definition.childNodeTypes).toEqual(['cms:area']);
    expect(definition.systemProperties).toEqual(['cms:template', 'jcr:created']);
    expect(definition.properties).toEqual(['cms:lastModified', 'title']);
    expect(definition.excludeProperties).toEqual(['cms:created']);
    expect(definition.references[0]!.nodeType).toBe('cms:component');
  });
});
