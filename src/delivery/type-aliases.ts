// Delivery layer: maps endpoint and resolver `$type` names and the original CMS's class names to our kinds.

export type EndpointKind = 'delivery' | 'pages';
export type ResolverKind = 'jcrReferenceResolver' | 'assetReferenceResolver' | 'richTextLinkReferenceResolver';

// Vendor class names are accepted so that light modules written for the original CMS load unchanged.
const ENDPOINT_KINDS: ReadonlyMap<string, EndpointKind> = new Map<string, EndpointKind>([
  ['jcrDeliveryEndpoint_v2', 'delivery'],
  ['deliveryEndpoint_v2', 'delivery'],
  ['info.magnolia.rest.delivery.jcr.v2.JcrDeliveryEndpointDefinition', 'delivery'],
  ['info.magnolia.rest.delivery.norsu.NorsuDeliveryEndpointDefinition', 'delivery'],
  ['jcrPagesDeliveryEndpoint_v2', 'pages'],
  ['pagesDeliveryEndpoint_v2', 'pages'],
  ['info.magnolia.rest.delivery.jcr.v2.JcrPagesDeliveryEndpointDefinition', 'pages'],
  ['info.magnolia.pages.rest.delivery.jcr.v2.JcrPagesDeliveryEndpointDefinition', 'pages'],
]);

const RESOLVER_KINDS: ReadonlyMap<string, ResolverKind> = new Map<string, ResolverKind>([
  ['jcrReferenceResolver', 'jcrReferenceResolver'],
  ['info.magnolia.rest.reference.jcr.JcrReferenceResolverDefinition', 'jcrReferenceResolver'],
  // The SaaS flavour of the original CMS names its JCR resolver after its "norsu" backend.
  ['norsuReferenceResolver', 'jcrReferenceResolver'],
  ['assetReferenceResolver', 'assetReferenceResolver'],
  ['info.magnolia.rest.reference.dam.AssetReferenceResolverDefinition', 'assetReferenceResolver'],
  ['richTextLinkReferenceResolver', 'richTextLinkReferenceResolver'],
  ['info.magnolia.rest.reference.richtext.RichTextLinkReferenceResolverDefinition', 'richTextLinkReferenceResolver'],
]);

/** The endpoint kind of a `$type` name or vendor class name; undefined when unknown. */
export function endpointKindOf(typeOrClass: string): EndpointKind | undefined {
  return ENDPOINT_KINDS.get(typeOrClass);
}

/** The resolver kind of a `$type` name or vendor class name; undefined when unknown. */
export function resolverKindOf(typeOrClass: string): ResolverKind | undefined {
  return RESOLVER_KINDS.get(typeOrClass);
}

/** Our own `$type` names (no vendor aliases), for error messages. */
export const ENDPOINT_TYPE_NAMES: readonly string[] = [
  'jcrDeliveryEndpoint_v2',
  'deliveryEndpoint_v2',
  'jcrPagesDeliveryEndpoint_v2',
  'pagesDeliveryEndpoint_v2',
];
export const RESOLVER_TYPE_NAMES: readonly string[] = [
  'jcrReferenceResolver',
  'assetReferenceResolver',
  'richTextLinkReferenceResolver',
];
