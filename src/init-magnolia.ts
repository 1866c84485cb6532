// `petal init --magnolia`: writes a petal.yaml that serves an existing light-modules folder (and
// content exports) to a front end written for the original CMS: `mgnl:` names, the original's context
// path, CORS for the front end's dev server, the built-in anonymous URI rules complete, and anonymous
// read on `dam` and on every workspace an endpoint reads with workspace permissions.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { Document } from 'yaml';
import { ConfigError } from './config/config-error.js';
import { loadDefinitions } from './delivery/load-definitions.js';
import type { EndpointDefinition } from './delivery/endpoint-definition.js';

export const INIT_HELP = `petal init --magnolia [--modules DIR] [--content DIR]... [--context-path PATH]
           [--front-end ORIGIN]... [--out FILE] [--force]
  writes a petal.yaml serving the light modules in DIR (default ./light-modules) to a front end
  written for the original CMS (defaults: --context-path /magnoliaAuthor,
  --front-end http://localhost:3000, --out ./petal.yaml; --force overwrites an existing file)
`;

export interface InitPlan {
  readonly modules: string;
  readonly content: readonly string[];
  readonly contextPath: string;
  readonly frontEnds: readonly string[];
  /** Workspaces anonymous callers may read: dam and those read with workspace permissions. */
  readonly readable: readonly string[];
  /** Endpoints reachable by anonymous callers only through a URI rule added here. */
  readonly endpointPrefixes: readonly string[];
}

const ORIGIN = /^https?:\/\/[^/\s?#]+$/;

/** The workspaces anonymous callers must read for these endpoints to work unchanged. */
export function workspacesToRead(definitions: readonly EndpointDefinition[]): string[] {
  const out = new Set<string>(['dam']);
  for (const d of definitions) {
    if (d.bypassWorkspaceAcls) continue;
    out.add(d.workspace);
    for (const r of d.references) if (r.resolver.kind === 'jcrReferenceResolver') out.add(r.resolver.targetWorkspace);
  }
  return [...out].sort();
}

/** `/.rest/<first segment>/*` of endpoints outside `/.rest/delivery/` (the built-in rule covers those). */
function extraEndpointPrefixes(definitions: readonly EndpointDefinition[]): string[] {
  const out = new Set<string>();
  for (const d of definitions) {
    const first = d.endpointPath.split('/')[1];
    if (first !== undefined && first !== '' && first !== 'delivery') out.add(`/.rest/${first}/*`);
  }
  return [...out].sort();
}

export function renderInitConfig(plan: InitPlan, outDir: string): string {
  // Relative to the file when it is near (the file can move with its folder), else absolute.
  const rel = (p: string) => {
    const r = relative(outDir, p);
    if (r === '') return '.';
    if (isAbsolute(r) || r.split(sep).filter((s) => s === '..').length > 2) return p;
    return r.startsWith('..') ? r : `./${r}`;
  };
  const readAll = [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }];
  const doc = new Document({
    modules: [rel(plan.modules)],
    ...(plan.content.length > 0 ? { content: plan.content.map(rel) } : {}),
    namespace: 'mgnl',
    contextPath: plan.contextPath,
    cors: { origins: [...plan.frontEnds] },
    security: {
      roles: {
        'rest-anonymous': {
          uriPermissions: [
            { path: '/.rest/delivery/*', permission: 'get' },
            { path: '/.rest/template-annotations/*', permission: 'get' },
            ...plan.endpointPrefixes.map((path) => ({ path, permission: 'get' })),
          ],
        },
        anonymous: {
          uriPermissions: ['/.health', '/dam/*', '/.imaging/*'].map((path) => ({ path, permission: 'get' })),
          workspacePermissions: Object.fromEntries(plan.readable.map((ws) => [ws, readAll])),
        },
      },
    },
  });
  doc.commentBefore = [
    ' Written by `petal init --magnolia`: serves the light modules to a front end written for the',
    ' original CMS. Anonymous callers read every workspace listed under workspacePermissions: narrow',
    ' them (deny rules) before putting this on the internet.',
  ].join('\n');
  return doc.toString({ flowCollectionPadding: true, collectionStyle: 'any' });
}

export async function initCommand(args: string[], cwd = process.cwd()): Promise<number> {
  const { values } = parseArgs({
    args, allowPositionals: false,
    options: {
      magnolia: { type: 'boolean' }, modules: { type: 'string' }, content: { type: 'string', multiple: true },
      'context-path': { type: 'string' }, 'front-end': { type: 'string', multiple: true }, out: { type: 'string' },
      force: { type: 'boolean' },
    },
  });
  if (values.magnolia !== true) throw new ConfigError('init', `only \`petal init --magnolia\` exists so far\n\n${INIT_HELP}`);
  const modules = resolve(cwd, values.modules ?? 'light-modules');
  if (!existsSync(modules) || !statSync(modules).isDirectory()) throw new ConfigError('--modules', `no folder at ${modules}`);
  const content = (values.content ?? []).map((c) => resolve(cwd, c));
  for (const c of content) if (!existsSync(c)) throw new ConfigError('--content', `nothing at ${c}`);
  const contextPath = values['context-path'] ?? '/magnoliaAuthor';
  if (contextPath !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(contextPath)) {
    throw new ConfigError('--context-path', `expected "" or /segment[/segment…], got ${JSON.stringify(contextPath)}`);
  }
  const frontEnds = values['front-end'] ?? ['http://localhost:3000'];
  for (const f of frontEnds) if (!ORIGIN.test(f)) throw new ConfigError('--front-end', `expected an origin such as http://localhost:3000, got ${JSON.stringify(f)}`);
  const out = resolve(cwd, values.out ?? 'petal.yaml');
  if (existsSync(out) && values.force !== true) throw new ConfigError('--out', `${out} exists; use --force to overwrite it`);

  const load = await loadDefinitions([modules]);
  const plan: InitPlan = {
    modules, content, contextPath, frontEnds,
    readable: workspacesToRead(load.definitions),
    endpointPrefixes: extraEndpointPrefixes(load.definitions),
  };
  writeFileSync(out, renderInitConfig(plan, dirname(out)), { flag: values.force === true ? 'w' : 'wx' });
  process.stdout.write([
    `wrote ${out}: ${load.definitions.length} endpoint definition(s), context path ${contextPath || '(none)'},`,
    `front end(s) ${frontEnds.join(', ')}; anonymous read on ${plan.readable.join(', ')}`,
    `next: npx petal serve${values.out !== undefined ? ` --config ${out}` : ''}`,
    '',
  ].join('\n'));
  return 0;
}
