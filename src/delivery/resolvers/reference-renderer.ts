// Delivery layer: renders reference properties during the one rendering pass, from targets fetched
// beforehand (prefetch.ts): jcrReferenceResolver (target nodes), assetReferenceResolver (asset objects
// with metadata and renditions) and richTextLinkReferenceResolver (link markers rewritten).
import type { PropertyType, ScalarValue } from '../../model/property-type.js';
import type { NodeRecord } from '../../store/rows.js';
import type { EndpointDefinition, ResolverDefinition } from '../endpoint-definition.js';
import type { LinkConfig } from '../../config/link-config.js';
import { assetLink, pageLink, renditionLink, undefinedRenditionLink } from '../links.js';
import { compileVisibility, type Visibility } from '../property-visibility.js';
import { renderNode, type ReferenceRenderer } from '../render-node.js';
import type { LocaleChoice } from '../resolve-locale.js';
import { renderAssetMetadata } from './asset-metadata.js';
import { targetKey, type ResolvedTargets } from './prefetch.js';
import { ruleFor, uuidOf, type ReferenceRule } from './reference-rules.js';
import { rewriteRichText } from './rich-text-link.js';

/** The site's theme as far as links need it: its name and whether it defines a variation. */
export interface ThemeInfo {
  readonly name: string;
  hasVariation(name: string): boolean;
}

export interface ReferenceEnv {
  readonly rules: readonly ReferenceRule[];
  readonly targets: ResolvedTargets;
  readonly endpoint: EndpointDefinition;
  readonly locale: LocaleChoice;
  readonly outName: (name: string) => string;
  readonly links: LinkConfig;
  readonly theme?: ThemeInfo;
}

type JcrResolver = Extract<ResolverDefinition, { kind: 'jcrReferenceResolver' }>;
type AssetResolver = Extract<ResolverDefinition, { kind: 'assetReferenceResolver' }>;

const visibilityCache = new WeakMap<ResolverDefinition, Visibility>();

function resolverVisibility(r: JcrResolver, def: EndpointDefinition): Visibility {
  let v = visibilityCache.get(r);
  if (!v) {
    v = compileVisibility({
      ...(r.properties !== undefined ? { properties: r.properties } : {}),
      ...(r.excludeProperties !== undefined ? { excludeProperties: r.excludeProperties } : {}),
      includeSystemProperties: def.includeSystemProperties,
      ...(def.systemProperties !== undefined ? { systemProperties: def.systemProperties } : {}),
    });
    visibilityCache.set(r, v);
  }
  return v;
}

function prop(node: NodeRecord | undefined, name: string): ScalarValue | readonly ScalarValue[] | undefined {
  return node?.properties.find((p) => p[0] === name)?.[2];
}

export function referenceRenderer(env: ReferenceEnv, level: number, chain: ReadonlySet<string>): ReferenceRenderer {
  const each = (value: ScalarValue | readonly ScalarValue[], one: (v: ScalarValue) => string | undefined): string | undefined => {
    if (!Array.isArray(value)) return one(value as ScalarValue);
    let out = '[';
    value.forEach((v, i) => {
      out += (i > 0 ? ',' : '') + (one(v as ScalarValue) ?? JSON.stringify(String(v)));
    });
    return out + ']';
  };

  const renderJcr = (owner: NodeRecord, r: JcrResolver, v: ScalarValue): string | undefined => {
    const id = uuidOf(v);
    const target = id === undefined ? undefined : env.targets.nodes.get(targetKey(r.targetWorkspace, id));
    if (!target) return undefined; // missing or unreadable: the stored value stays
    if (!env.endpoint.referenceRepeat && (target.id === owner.id || chain.has(target.id))) return undefined;
    const link = pageLink(env.links, target.path);
    if (!r.expand) {
      return '{"@name":' + JSON.stringify(env.outName(target.name)) + ',"@path":' + JSON.stringify(target.path)
        + ',"@id":' + JSON.stringify(target.id) + ',"@nodeType":' + JSON.stringify(env.outName(target.type))
        + ',"@link":' + JSON.stringify(link) + ',"@nodes":[]}';
    }
    const nextChain = new Set(chain);
    nextChain.add(owner.id);
    nextChain.add(target.id);
    return renderNode(target, env.targets.children.get(r.targetWorkspace) ?? new Map(), {
      depth: r.depthInReferencedNode,
      childType: null,
      visible: resolverVisibility(r, env.endpoint),
      locale: env.locale,
      outName: env.outName,
      refs: level < env.endpoint.referenceDepth ? referenceRenderer(env, level + 1, nextChain) : null,
      ...(r.generateLink ? { link } : {}),
    });
  };

  const renderAsset = (r: AssetResolver, v: ScalarValue): string | undefined => {
    const id = uuidOf(v);
    const asset = id === undefined ? undefined : env.targets.nodes.get(targetKey('dam', id));
    if (!asset) return undefined;
    const resource = (env.targets.children.get('dam')?.get(asset.path) ?? []).find((c) => c.name === 'jcr:content');
    const fileNameValue = prop(resource, 'fileName');
    const fileName = typeof fileNameValue === 'string' ? fileNameValue : asset.name;
    const link = assetLink(env.links, asset.id, fileName);
    const extensionValue = prop(resource, 'extension');
    const extension = typeof extensionValue === 'string' && extensionValue !== '' ? extensionValue : /\.([^./]+)$/.exec(fileName)?.[1];
    if (!r.expand) return r.includeDownloadLink ? JSON.stringify(link) : undefined;
    let out = '{"@name":' + JSON.stringify(asset.name) + ',"@path":' + JSON.stringify(asset.path)
      + ',"@id":' + JSON.stringify(`jcr:${asset.id}`);
    if (r.includeDownloadLink) out += ',"@link":' + JSON.stringify(link);
    if (r.includeAssetMetadata) out += ',"metadata":' + renderAssetMetadata(asset, resource);
    if (r.assetRenditions !== undefined && r.assetRenditions.length > 0) {
      const mime = prop(resource, 'jcr:mimeType');
      let rend = '';
      for (const name of r.assetRenditions) {
        // An undefined rendition is no error: it links to the original size (SPEC.md), as the original does.
        const l = env.theme?.hasVariation(name)
          ? renditionLink(env.links, env.theme.name, name, asset.path, fileName)
          : undefinedRenditionLink(env.links, asset.path, extension);
        rend += (rend === '' ? '' : ',') + JSON.stringify(name) + ':{"mimeType":' + JSON.stringify(typeof mime === 'string' ? mime : 'application/octet-stream') + ',"link":' + JSON.stringify(l) + '}';
      }
      out += ',"renditions":{' + rend + '}';
    }
    return out + '}';
  };

  return {
    render(node: NodeRecord, name: string, type: PropertyType, value: ScalarValue | readonly ScalarValue[]): string | undefined {
      const rule = ruleFor(env.rules, node.type, name);
      if (!rule) return undefined;
      const r = rule.resolver;
      switch (r.kind) {
        case 'jcrReferenceResolver':
          return each(value, (v) => renderJcr(node, r, v));
        case 'assetReferenceResolver':
          return each(value, (v) => renderAsset(r, v));
        case 'richTextLinkReferenceResolver': {
          if (type !== 'String') return undefined;
          const ctx = {
            links: env.links, completeUrl: r.completeUrl,
            target: (repo: string, uuid: string) => env.targets.nodes.get(targetKey(repo, uuid)),
            resourceOf: (asset: NodeRecord) => (env.targets.children.get('dam')?.get(asset.path) ?? []).find((c) => c.name === 'jcr:content'),
          };
          return each(value, (v) => (typeof v === 'string' ? JSON.stringify(rewriteRichText(v, ctx)) : undefined));
        }
      }
    },
  };
}
