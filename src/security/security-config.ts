// Security layer (config): the `security:` section of petal.yaml and the files of the security folder,
// validated, merged with the built-in roles and checked for dangling references.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config/config-error.js';
import { readYamlFileSync, yamlToJS, YamlFileTooLargeError } from '../config/yaml-file.js';
import { isPasswordHash } from './password-hash.js';
import { WORKSPACE_NAME, WORKSPACE_NAME_RULE } from '../model/names.js';

/** Names of users, groups and roles: also what `petal user add` accepts. */
export const NAME_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;
/** The file of the security folder that holds API tokens (not identities, so not merged). */
export const TOKENS_FILE_NAME = 'tokens.yaml';
/** The file of the security folder that `petal user add` writes. */
export const USERS_FILE_NAME = 'users.yaml';
/** The file of the security folder where `petal user logout` records when each user's sessions end. */
export const LOGOUTS_FILE_NAME = 'logouts.yaml';
export const DEFAULT_SECURITY_FOLDER = './security';
/** `definedIn` value of the roles that ship with Petal. */
export const BUILT_IN = 'built-in';

// `__proto__` passes the pattern; as a key refuseProtoKeys stops it, as a value (a role named in a list) this does.
const name = z.string().regex(NAME_PATTERN, 'expected 1-64 letters, digits or . _ @ -').refine((n) => n !== '__proto__', 'reserved name');
const workspaceName = z.string().refine((w) => w === '*' || WORKSPACE_NAME.test(w), `expected * or a workspace name (${WORKSPACE_NAME_RULE})`);
// Rules are matched against canonical paths; a pattern that no canonical path can have is a mistake.
const rulePath = z.string().max(1024)
  .regex(/^\//, 'must start with /')
  .refine((p) => !/[\u0000-\u001f\u007f\\?#%;]/.test(p), 'must not contain control characters, \\, ?, #, % or ;')
  .refine((p) => !/\/\/|\/\.{1,2}(\/|$)/.test(p), 'must not contain //, /./ or /../');

const uriPermission = z.enum(['get', 'getAndPost', 'deny']);
const workspacePermission = z.enum(['deny', 'read', 'readWrite']);

const roleSchema = z.strictObject({
  uriPermissions: z.array(z.strictObject({ path: rulePath, permission: uriPermission })).default([]),
  workspacePermissions: z.record(workspaceName, z.array(z.strictObject({ path: rulePath, permission: workspacePermission }))).default({}),
});

const userSchema = z.strictObject({
  passwordHash: z.string().refine(isPasswordHash, 'expected $scrypt$ln=…,r=…,p=…$<salt>$<hash> (create one with `petal user add`)'),
  roles: z.array(name).default([]),
  groups: z.array(name).default([]),
  enabled: z.boolean().default(true),
});

const groupSchema = z.strictObject({
  roles: z.array(name).default([]),
  groups: z.array(name).default([]),
});

/** What a file of the security folder may hold. */
export const securityFileSchema = z.strictObject({
  users: z.record(name, userSchema).optional(),
  groups: z.record(name, groupSchema).optional(),
  roles: z.record(name, roleSchema).optional(),
});

/** The `security:` key of petal.yaml. */
export const securityConfigSchema = z.strictObject({
  folder: z.string().min(1).optional(),
  anonymousRoles: z.array(name).default(['anonymous', 'rest-anonymous']),
  /** Roles every signed-in caller holds besides their own (never the anonymous ones). */
  authenticatedRoles: z.array(name).default(['rest-anonymous']),
  session: z.strictObject({
    idleMinutes: z.number().positive().max(60 * 24 * 30).default(30),
    absoluteHours: z.number().positive().max(24 * 365).default(8),
  }).default({ idleMinutes: 30, absoluteHours: 8 }),
  login: z.strictObject({
    maxConcurrentHashes: z.number().int().min(1).max(64).default(2),
    maxQueuedHashes: z.number().int().min(0).max(10_000).default(16),
  }).default({ maxConcurrentHashes: 2, maxQueuedHashes: 16 }),
  /** Bytes of memoized workspace-permission decisions (all role sets together). */
  aclCacheMaxBytes: z.number().int().min(0).default(16 * 1024 * 1024),
  users: z.record(name, userSchema).optional(),
  groups: z.record(name, groupSchema).optional(),
  roles: z.record(name, roleSchema).optional(),
});

export type RawSecurityConfig = z.input<typeof securityConfigSchema>;
export type UriPermission = z.infer<typeof uriPermission>;
export type WorkspacePermission = z.infer<typeof workspacePermission>;

export interface UriRule {
  readonly path: string;
  readonly permission: UriPermission;
}

export interface WorkspaceRule {
  readonly path: string;
  readonly permission: WorkspacePermission;
}

export interface RoleConfig {
  readonly uriPermissions: readonly UriRule[];
  /** Workspace name (or `*` for every workspace) → rules. */
  readonly workspacePermissions: ReadonlyMap<string, readonly WorkspaceRule[]>;
}

export interface UserConfig {
  readonly passwordHash: string;
  readonly roles: readonly string[];
  readonly groups: readonly string[];
  readonly enabled: boolean;
}

export interface GroupConfig {
  readonly roles: readonly string[];
  readonly groups: readonly string[];
}

/** The resolved security settings: every default applied, the folder merged, references checked. */
export interface SecurityConfig {
  /** Absolute security folder (it may not exist when it was not configured). */
  readonly folder: string;
  /** `<folder>/tokens.yaml`: API token hashes. */
  readonly tokensFile: string;
  /** `<folder>/users.yaml`: where `petal user add` writes. */
  readonly usersFile: string;
  /** `<folder>/logouts.yaml`: per user, the time before which their sessions are void. */
  readonly logoutsFile: string;
  readonly anonymousRoles: readonly string[];
  /** Roles every signed-in caller holds besides their own (sorted). */
  readonly authenticatedRoles: readonly string[];
  readonly session: { readonly idleMinutes: number; readonly absoluteHours: number };
  readonly login: { readonly maxConcurrentHashes: number; readonly maxQueuedHashes: number };
  readonly aclCacheMaxBytes: number;
  /** User name → epoch ms: sessions created at or before it are void (from logouts.yaml). */
  readonly logouts: ReadonlyMap<string, number>;
  readonly users: ReadonlyMap<string, UserConfig>;
  readonly groups: ReadonlyMap<string, GroupConfig>;
  /** Configured roles plus the built-ins that were not overridden. */
  readonly roles: ReadonlyMap<string, RoleConfig>;
  /** Where each name comes from: a file path, or BUILT_IN for roles shipped with Petal. */
  readonly definedIn: {
    readonly users: ReadonlyMap<string, string>;
    readonly groups: ReadonlyMap<string, string>;
    readonly roles: ReadonlyMap<string, string>;
  };
}

/**
 * Roles that ship with Petal, replaced (not merged) by a configured role of the same name.
 * `anonymous` grants no workspace: content is public only once an operator grants read on it.
 */
export const BUILT_IN_ROLES: ReadonlyMap<string, RoleConfig> = new Map<string, RoleConfig>([
  ['anonymous', {
    // Asset URLs are open to URI checks; the dam workspace's permissions still decide each asset.
    uriPermissions: [
      { path: '/.health', permission: 'get' }, { path: '/dam/*', permission: 'get' }, { path: '/.imaging/*', permission: 'get' },
    ],
    workspacePermissions: new Map(),
  }],
  // The deprecated shop API serves anonymous shoppers (carts, wishlists, orders); its reads still
  // depend on the shop workspaces' permissions, and GET /orders on a signed-in user.
  ['rest-anonymous', {
    // The OpenAPI document and the explorer page that loads it show each reader only what they may call.
    uriPermissions: [
      { path: '/.rest/delivery/*', permission: 'get' }, { path: '/shop/v1/*', permission: 'getAndPost' },
      { path: '/.rest/openapi.json', permission: 'get' }, { path: '/.rest/openapi.yaml', permission: 'get' },
      { path: '/.petal/explorer', permission: 'get' }, { path: '/.petal/explorer/*', permission: 'get' },
    ],
    workspacePermissions: new Map(),
  }],
  ['superuser', {
    uriPermissions: [{ path: '/*', permission: 'getAndPost' }],
    workspacePermissions: new Map([['*', [{ path: '/', permission: 'readWrite' }, { path: '/*', permission: 'readWrite' }]]]),
  }],
]);

type ParsedFile = z.output<typeof securityFileSchema>;

/**
 * Validates the `security:` section (`raw`, undefined when absent), reads and merges `*.yaml` of the
 * security folder (relative paths resolve against `baseDir`, the folder of petal.yaml) and checks that
 * every role and group named exists and that groups do not contain themselves.
 * `configFile` (petal.yaml) only improves error messages: file name and line.
 */
export function loadSecurity(raw: unknown, baseDir: string, configFile?: string): SecurityConfig {
  refuseProtoKeys(raw, configFile, ['security']);
  const parsed = securityConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) throw zodError(parsed.error, configFile, ['security'], configFile !== undefined ? readDoc(configFile) : undefined);
  const section = parsed.data;
  const folder = resolve(baseDir, section.folder ?? DEFAULT_SECURITY_FOLDER);
  const sectionFile = configFile ?? 'petal.yaml';

  const users = new Map<string, UserConfig>();
  const groups = new Map<string, GroupConfig>();
  const roles = new Map<string, RoleConfig>();
  const definedIn = { users: new Map<string, string>(), groups: new Map<string, string>(), roles: new Map<string, string>() };

  const add = (source: ParsedFile, file: string) => {
    for (const [n, u] of Object.entries(source.users ?? {})) {
      claim(definedIn.users, 'user', n, file);
      users.set(n, u);
    }
    for (const [n, g] of Object.entries(source.groups ?? {})) {
      claim(definedIn.groups, 'group', n, file);
      groups.set(n, g);
    }
    for (const [n, r] of Object.entries(source.roles ?? {})) {
      claim(definedIn.roles, 'role', n, file);
      roles.set(n, { uriPermissions: r.uriPermissions, workspacePermissions: new Map(Object.entries(r.workspacePermissions)) });
    }
  };
  add(section, sectionFile);
  for (const file of folderFiles(folder, section.folder !== undefined, sectionFile)) add(readSecurityFile(file), file);

  for (const [n, role] of BUILT_IN_ROLES) {
    if (!roles.has(n)) {
      roles.set(n, role);
      definedIn.roles.set(n, BUILT_IN);
    }
  }
  checkReferences(users, groups, roles, definedIn, section.anonymousRoles, sectionFile);
  for (const r of section.authenticatedRoles) {
    if (!roles.has(r)) throw new ConfigError(sectionFile, `security.authenticatedRoles names unknown role ${r} (known: ${[...roles.keys()].sort().join(', ')})`);
  }

  return {
    folder,
    tokensFile: join(folder, TOKENS_FILE_NAME),
    usersFile: join(folder, USERS_FILE_NAME),
    logoutsFile: join(folder, LOGOUTS_FILE_NAME),
    anonymousRoles: [...new Set(section.anonymousRoles)].sort(),
    authenticatedRoles: [...new Set(section.authenticatedRoles)].sort(),
    session: section.session,
    login: section.login,
    aclCacheMaxBytes: section.aclCacheMaxBytes,
    logouts: readLogouts(join(folder, LOGOUTS_FILE_NAME)),
    users,
    groups,
    roles,
    definedIn,
  };
}

function claim(owners: Map<string, string>, kind: string, n: string, file: string): void {
  const earlier = owners.get(n);
  if (earlier !== undefined) throw new ConfigError(file, `${kind} ${n} is defined twice: in ${earlier} and in ${file}`);
  owners.set(n, file);
}

const logoutsSchema = z.strictObject({
  logouts: z.record(name, z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'expected an ISO-8601 date-time')).default({}),
});

/** The logouts file (missing = none): user name → epoch ms. */
export function readLogouts(file: string): Map<string, number> {
  if (!existsSync(file)) return new Map();
  const { data, doc, lines } = readSecurityYaml(file);
  const parsed = logoutsSchema.safeParse(data);
  if (!parsed.success) throw zodError(parsed.error, file, [], { doc, lines });
  return new Map(Object.entries(parsed.data.logouts).map(([user, at]) => [user, Date.parse(at)]));
}

/** The `*.yaml` files of the folder (sorted, hidden files, tokens.yaml and logouts.yaml left out). */
function folderFiles(folder: string, configured: boolean, configFile: string): string[] {
  if (!existsSync(folder)) {
    // A folder the operator named but that is missing is most likely a typo: say so at start.
    if (configured) throw new ConfigError(configFile, `security.folder: ${folder} does not exist`);
    return [];
  }
  if (!statSync(folder).isDirectory()) throw new ConfigError(configFile, `security.folder: ${folder} is not a folder`);
  const files: string[] = [];
  for (const entry of readdirSync(folder).sort()) {
    if (entry.startsWith('.') || entry === TOKENS_FILE_NAME || entry === LOGOUTS_FILE_NAME) continue;
    const file = join(folder, entry);
    // Silently skipping users.yml would leave an operator wondering why a user cannot log in.
    if (entry.endsWith('.yml')) throw new ConfigError(file, 'security files must end in .yaml, not .yml');
    if (entry.endsWith('.yaml') && statSync(file).isFile()) files.push(file);
  }
  return files;
}

function readDoc(file: string): { doc: Document; lines: LineCounter } | undefined {
  try {
    const lines = new LineCounter();
    return { doc: parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines, prettyErrors: false }), lines };
  } catch {
    return undefined;
  }
}

/**
 * A security-folder YAML file as values, within the bounds of every configuration file (size, alias
 * uses); YAML errors, bounds and `__proto__` keys are ConfigErrors naming the file (and line).
 */
function readSecurityYaml(file: string): { data: unknown; doc: Document; lines: LineCounter } {
  let text: string;
  try {
    text = readYamlFileSync(file);
  } catch (err) {
    if (err instanceof YamlFileTooLargeError) throw new ConfigError(file, err.message);
    throw err;
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new ConfigError(file, e.message.split('\n')[0]!, lines.linePos(e.pos[0]).line);
  }
  let data: unknown;
  try {
    data = yamlToJS(doc) ?? {};
  } catch (err) {
    throw new ConfigError(file, err instanceof Error ? err.message : String(err));
  }
  refuseProtoKeys(data, file, []);
  return { data, doc, lines };
}

function readSecurityFile(file: string): ParsedFile {
  const { data, doc, lines } = readSecurityYaml(file);
  const parsed = securityFileSchema.safeParse(data);
  if (!parsed.success) throw zodError(parsed.error, file, [], { doc, lines });
  return parsed.data;
}

/** zod silently drops `__proto__` keys from records: a user or role so named would vanish without a word. */
function refuseProtoKeys(value: unknown, file: string | undefined, path: readonly string[]): void {
  if (typeof value !== 'object' || value === null) return;
  for (const key of Object.keys(value)) {
    if (key === '__proto__') throw new ConfigError(file, `${[...path, key].join('.')}: reserved name`);
    refuseProtoKeys((value as Record<string, unknown>)[key], file, [...path, key]);
  }
}

/** The first zod issue as a ConfigError with its dotted path and, when the document is known, its line. */
function zodError(error: z.ZodError, file: string | undefined, prefix: readonly string[], source?: { doc: Document; lines: LineCounter }): ConfigError {
  const issue = error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const path = [...prefix, ...issue.path.map(String)];
  const where = path.length > 0 ? `${path.join('.')}: ` : '';
  const reason = keys.length > 0 ? `unknown key(s) ${keys.join(', ')}`
    // A bad record key (a user, group, role or workspace name): give the rule it broke, not just "invalid key".
    : issue.code === 'invalid_key' && issue.issues.length > 0 ? `invalid name: ${issue.issues[0]!.message}`
    : issue.message;
  const range = source ? rangeOf(source.doc, keys.length > 0 ? [...path, keys[0]!] : path) : undefined;
  return new ConfigError(file, `${where}${reason}`, range !== undefined ? source!.lines.linePos(range).line : undefined);
}

/** Offset of the key (or value) at `path`, walking up to the nearest ancestor that exists. */
function rangeOf(doc: Document, path: readonly string[]): number | undefined {
  for (let depth = path.length; depth > 0; depth--) {
    const keyPath = path.slice(0, depth);
    const parent = depth > 1 ? doc.getIn(keyPath.slice(0, -1), true) : doc.contents;
    if (isMap(parent)) {
      for (const pair of parent.items) {
        if (isScalar(pair.key) && String(pair.key.value) === keyPath[depth - 1] && pair.key.range) return pair.key.range[0];
      }
    }
    const node = doc.getIn(keyPath, true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return node.range[0];
  }
  return undefined;
}

function checkReferences(
  users: ReadonlyMap<string, UserConfig>,
  groups: ReadonlyMap<string, GroupConfig>,
  roles: ReadonlyMap<string, RoleConfig>,
  definedIn: SecurityConfig['definedIn'],
  anonymousRoles: readonly string[],
  configFile: string,
): void {
  const needRole = (r: string, who: string, file: string) => {
    if (!roles.has(r)) throw new ConfigError(file, `${who} names unknown role ${r} (known: ${[...roles.keys()].sort().join(', ')})`);
  };
  const needGroup = (g: string, who: string, file: string) => {
    if (!groups.has(g)) throw new ConfigError(file, `${who} names unknown group ${g}${groups.size > 0 ? ` (known: ${[...groups.keys()].sort().join(', ')})` : ''}`);
  };
  for (const r of anonymousRoles) needRole(r, 'security.anonymousRoles', configFile);
  for (const [n, u] of users) {
    const file = definedIn.users.get(n)!;
    for (const r of u.roles) needRole(r, `user ${n}`, file);
    for (const g of u.groups) needGroup(g, `user ${n}`, file);
  }
  for (const [n, g] of groups) {
    const file = definedIn.groups.get(n)!;
    for (const r of g.roles) needRole(r, `group ${n}`, file);
    for (const sub of g.groups) needGroup(sub, `group ${n}`, file);
  }
  // Depth-first search; a group met again while still on the stack closes a cycle.
  const done = new Set<string>();
  const visit = (g: string, stack: string[]) => {
    if (done.has(g)) return;
    const at = stack.indexOf(g);
    if (at >= 0) {
      const cycle = [...stack.slice(at), g];
      throw new ConfigError(definedIn.groups.get(g), `groups form a cycle: ${cycle.join(' → ')}`);
    }
    stack.push(g);
    for (const sub of groups.get(g)!.groups) visit(sub, stack);
    stack.pop();
    done.add(g);
  };
  for (const g of [...groups.keys()].sort()) visit(g, []);
}
