// Delivery layer: Read node, Get children and Query nodes. Reads go through the caller's repository
// Session; rendering is one synchronous pass over the fetched rows.
import { PetalError } from '../errors.js';
import type { SiteConfig } from '../config/load-config.js';
import { joinPath, normalizePath } from '../model/paths.js';
import type { Session } from '../repository/session.js';
import type { NodeRecord } from '../store/rows.js';
import type { CompiledEndpoint } from './compile-endpoint.js';
import { compileVisibility } from './property-visibility.js';
import { firstValue, nameList, type QueryParams } from './parse-request.js';
import { indexChildren, localizeSiblings, renderNode, type RenderOptions, type RenderRecord } from './render-node.js';
import { resolveLocale, type LocaleChoice } from './resolve-locale.js';
import { DEFAULT_LINKS, type LinkConfig } from '../config/link-config.js';
import { prefetchReferences } from './resolvers/prefetch.js';
import { referenceRenderer, type ThemeInfo } from './resolvers/reference-renderer.js';
import type { ReferenceRenderer } from './render-node.js';
import { parseQuerySpec } from './parse-query.js';
import { rejectVersion, versionParam, versionRows } from './read-version.js';
import type { Condition } from '../query/ast.js';
import { applyPageFeatures, extraDepth, featuresFor, isInsideVariants, NO_FEATURES, type PagesEnv } from './pages/page-features.js';
import { withoutVariantResults, withoutVariantRows } from './pages/hide-variants.js';
import { variantFreeSession } from './pages/variant-free-session.js';

export interface DeliveryRequest {
  readonly endpoint: CompiledEndpoint;
  /** Node path relative to the endpoint's rootPath, decoded, as given in the URL. */
  readonly path: string;
  readonly query: QueryParams;
  readonly acceptLanguage?: string;
}

export interface DeliveryResponse {
  readonly body: string;
  readonly contentLanguage: string;
}

export interface DeliveryEnv {
  readonly session: Session;
  readonly site: SiteConfig;
  readonly outName: (name: string) => string;
  readonly links?: LinkConfig;
  readonly theme?: ThemeInfo;
  /** Templates, traits and the visitor's trait values, for the pages features; absent = none apply. */
  readonly pages?: PagesEnv;
}

/** Fetches the targets of the references in `rows` (if the endpoint has any) and gives their renderer. */
async function references(req: DeliveryRequest, env: DeliveryEnv, locale: LocaleChoice, rows: readonly NodeRecord[]): Promise<ReferenceRenderer | null> {
  const rules = req.endpoint.references;
  if (rules === null || rows.length === 0) return null;
  const def = req.endpoint.definition;
  // On a personalized endpoint, variants reach a visitor only through their original (see applyVariants).
  const session = env.pages !== undefined && def.personalized ? variantFreeSession(env.session) : env.session;
  const targets = await prefetchReferences(rows, rules, session, def.referenceDepth);
  return referenceRenderer({
    rules, targets, endpoint: def, locale, outName: env.outName, links: env.links ?? DEFAULT_LINKS,
    ...(env.theme !== undefined ? { theme: env.theme } : {}),
  }, 1, new Set());
}

function renderOptions(req: DeliveryRequest, env: DeliveryEnv, locale: LocaleChoice, refs: ReferenceRenderer | null): RenderOptions {
  const { endpoint, query } = req;
  const properties = nameList(query, 'properties');
  const excludeProperties = nameList(query, 'excludeProperties');
  const visible = properties === undefined && excludeProperties === undefined
    ? endpoint.visibility
    : compileVisibility(endpoint.definition, { properties, excludeProperties });
  // One literal of one shape per request (a spread of it measured 2 % of an uncached Read node).
  return { depth: endpoint.definition.depth, childType: endpoint.childType, visible, locale, outName: env.outName, refs };
}

/** Absolute workspace path of a URL node path; undefined when it cannot name a node. */
function absolutePath(req: DeliveryRequest): string | undefined {
  const rel = normalizePath(req.path);
  if (rel === undefined) return undefined;
  const root = req.endpoint.definition.rootPath;
  return rel === '/' ? root : joinPath(root, rel.slice(1));
}

function notFound(req: DeliveryRequest): PetalError {
  return new PetalError('pathNotFound', req.path.startsWith('/') ? req.path : `/${req.path}`);
}

function localeOf(req: DeliveryRequest, env: DeliveryEnv): LocaleChoice {
  return resolveLocale(firstValue(req.query.lang), req.acceptLanguage, env.site);
}

export async function readNode(req: DeliveryRequest, env: DeliveryEnv): Promise<DeliveryResponse> {
  const def = req.endpoint.definition;
  const version = versionParam(req.query);
  const path = absolutePath(req);
  if (path === undefined || path === '/') throw notFound(req);
  const features = featuresFor(req.endpoint, env.pages, 'read');
  const readDepth = def.depth + extraDepth(features);
  // Before any version is looked up: a variant answers as a missing node, whatever the version.
  if (features.personalization && await isInsideVariants(env.session, def.workspace, path)) throw notFound(req);
  let rows: readonly NodeRecord[] = version === undefined
    ? await env.session.getSubtree(def.workspace, path, readDepth)
    : await versionRows(env.session, req.endpoint, path, version, notFound(req).message, readDepth);
  const stored = rows[0];
  if (stored === undefined || stored.path !== path) throw notFound(req);
  if (req.endpoint.nodeType !== null && !req.endpoint.nodeType(stored.type)) throw notFound(req);
  if (env.pages !== undefined && features !== NO_FEATURES) {
    rows = await applyPageFeatures(rows, stored, features, env.pages, env.session, def.depth);
  }
  const node = rows[0]!;
  const locale = localeOf(req, env);
  const refs = await references(req, env, locale, rows);
  const body = renderNode(node, indexChildren(rows), renderOptions(req, env, locale, refs));
  return { body, contentLanguage: locale.locale };
}

export async function getChildren(req: DeliveryRequest, env: DeliveryEnv): Promise<DeliveryResponse> {
  const def = req.endpoint.definition;
  rejectVersion(req.query, 'Get children');
  const path = absolutePath(req);
  if (path === undefined) throw notFound(req);
  const features = featuresFor(req.endpoint, env.pages, 'children');
  let rows = await env.session.getSubtree(def.workspace, path, def.depth + 1 + extraDepth(features));
  if (path !== '/' && rows[0]?.path !== path) throw notFound(req);
  if (path !== '/' && features.personalization && await isInsideVariants(env.session, def.workspace, path)) throw notFound(req);
  if (env.pages !== undefined && features !== NO_FEATURES) {
    rows = await applyPageFeatures(rows, path === '/' ? undefined : rows[0], features, env.pages, env.session, def.depth + 1);
  }
  const index = indexChildren(rows);
  const locale = localeOf(req, env);
  const options = renderOptions(req, env, locale, await references(req, env, locale, rows));
  // A chosen variant stands in for the node: its children are the answer.
  const parent = path === '/' ? path : (rows[0] as RenderRecord).childrenOf ?? path;
  const kids: NodeRecord[] = (index.get(parent) ?? []).filter((k) => req.endpoint.nodeType === null || req.endpoint.nodeType(k.type));
  let body = '[';
  let first = true;
  for (const { node } of localizeSiblings(kids, locale)) {
    body += (first ? '' : ',') + renderNode(node, index, options);
    first = false;
  }
  return { body: body + ']', contentLanguage: locale.locale };
}

/** The hidden names and their language variants (`notes` hides `notes_de` too, as rendering does). */
function withVariants(names: ReadonlySet<string>, suffixes: readonly string[]): ReadonlySet<string> {
  const out = new Set(names);
  for (const n of names) for (const s of suffixes) out.add(n + s);
  return out;
}

/**
 * Query nodes: `{total, offset, limit, results}`. Child-node language variants (`main_de`) are not
 * results of their own unless `lang=all`: they stand in for their base node inside results.
 */
export async function queryNodes(req: DeliveryRequest, env: DeliveryEnv): Promise<DeliveryResponse> {
  const def = req.endpoint.definition;
  rejectVersion(req.query, 'Query nodes');
  let spec = parseQuerySpec(req.query, req.endpoint, env.site.defaultLocale);
  const locale = localeOf(req, env);
  if (req.endpoint.hidden !== null) spec = { ...spec, hiddenProperties: withVariants(req.endpoint.hidden, locale.variantSuffixes) };
  const extra: Condition[] = [];
  if (!locale.all && locale.variantSuffixes.length > 0) {
    extra.push({
      kind: 'like', target: { kind: 'name' }, caseInsensitive: false, negate: true,
      patterns: locale.variantSuffixes.map((sfx) => `%${sfx.replace(/[\\%_]/g, (c) => `\\${c}`)}`),
    });
  }
  const hideVariants = env.pages !== undefined && def.personalized;
  if (hideVariants) {
    const scoped = await withoutVariantResults(env.session, spec);
    spec = scoped.spec;
    extra.push(...scoped.extra);
  }
  const { total, nodes } = await env.session.query(spec, extra);
  let rows = def.depth > 0 && nodes.length > 0
    ? await env.session.getSubtrees(def.workspace, nodes.map((n) => n.path), def.depth)
    : [];
  if (hideVariants) rows = withoutVariantRows(rows);
  const index = indexChildren(rows);
  const options = renderOptions(req, env, locale, await references(req, env, locale, [...nodes, ...rows]));
  let body = `{"total":${total},"offset":${spec.offset},"limit":${spec.limit},"results":[`;
  for (let i = 0; i < nodes.length; i++) body += (i === 0 ? '' : ',') + renderNode(nodes[i]!, index, options);
  return { body: body + ']}', contentLanguage: locale.locale };
}
