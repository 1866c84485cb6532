// Delivery layer: the zod schemas of an endpoint definition's properties (types, required ones, messages).
import { z } from 'zod';
import type { ResolverKind } from './type-aliases.js';
import { cacheControlSchema } from '../config/config-schema.js';
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../model/names.js';

/** zod message: "required" when the value is absent, else what was expected. */
function expected(what: string): { error: (issue: { input?: unknown }) => string } {
  return { error: (issue) => (issue.input === undefined ? 'required' : `expected ${what}`) };
}

const str = z.string(expected('a string'));
const bool = z.boolean(expected('a boolean (true or false)'));
const nonNegativeInt = z
  .int(expected('a non-negative integer'))
  .min(0, { error: 'expected a non-negative integer' });
const positiveInt = z.int(expected('an integer of at least 1')).min(1, { error: 'expected an integer of at least 1' });
// YAML reads a bare `- 240` (a rendition named 240) as a number; the original CMS takes it as the name.
const listItem = z.union([z.string(), z.number().transform(String)]);
const stringList = z
  .union([listItem, z.array(listItem)], expected('a list of strings'))
  .transform((v): string[] => (Array.isArray(v) ? v : [v]));
const endpointPath = str
  .refine((p) => p.startsWith('/') && p.length > 1, { error: 'expected a path starting with "/", e.g. /delivery/pages/v1' })
  .refine((p) => !p.startsWith('/.rest/'), { error: 'give the path without the /.rest prefix' })
  .refine((p) => !p.includes('//') && !p.includes('@'), { error: 'must not contain "//" or "@"' });
const workspaceName = str.refine((w) => isWorkspaceName(w), { error: (issue) => `${JSON.stringify(issue.input)}: ${WORKSPACE_NAME_RULE}` });

export const TOP_LEVEL = z.object({
  $type: str.optional(),
  class: str.optional(),
  implementationClass: z.unknown().optional(),
  enabled: bool.optional(),
  endpointPath: endpointPath.optional(),
  workspace: workspaceName.optional(),
  rootPath: str.optional(),
  properties: stringList.optional(),
  excludeProperties: stringList.optional(),
  nodeTypes: stringList.optional(),
  childNodeTypes: stringList.optional(),
  depth: nonNegativeInt.optional(),
  strict: bool.optional(),
  limit: positiveInt.optional(),
  maxLimit: positiveInt.optional(),
  // Checked entry by entry below, so that an error names the entry.
  references: z.unknown().optional(),
  referenceDepth: nonNegativeInt.optional(),
  referenceRepeat: bool.optional(),
  includeSystemProperties: bool.optional(),
  systemProperties: stringList.optional(),
  bypassWorkspaceAcls: bool.optional(),
  personalized: bool.optional(),
  timeToLive: nonNegativeInt.optional(),
  /** Cache-Control of the endpoint's answers (seconds); petal.yaml `cacheControl` when absent. */
  cacheControl: cacheControlSchema.optional(),
});

export const REFERENCE = z.object({
  name: str.optional(),
  nodeType: str.optional(),
  propertyName: str,
  referenceResolver: z.record(z.string(), z.unknown(), expected('a resolver definition (a map with $type or class)')),
});

export const RESOLVER_COMMON = { $type: str.optional(), class: str.optional(), implementationClass: z.unknown().optional() };
export const RESOLVER_TYPE = z.object(RESOLVER_COMMON);

export const RESOLVERS = {
  jcrReferenceResolver: z.object({
    ...RESOLVER_COMMON,
    targetWorkspace: workspaceName,
    expand: bool.optional(),
    generateLink: bool.optional(),
    depthInReferencedNode: nonNegativeInt.optional(),
    properties: stringList.optional(),
    excludeProperties: stringList.optional(),
  }),
  assetReferenceResolver: z.object({
    ...RESOLVER_COMMON,
    expand: bool.optional(),
    includeDownloadLink: bool.optional(),
    includeAssetMetadata: bool.optional(),
    assetRenditions: stringList.optional(),
  }),
  richTextLinkReferenceResolver: z.object({ ...RESOLVER_COMMON, completeUrl: bool.optional() }),
} as const satisfies Record<ResolverKind, z.ZodObject>;
