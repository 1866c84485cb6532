// Config layer: the `security:` section of petal.yaml and the files of the security folder,
// validated, merged with the built-in roles and checked for dangling references.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUILT_IN, BUILT_IN_ROLES } from './built-in-roles.js';
import { ConfigError } from './config-error.js';
import {
  DEFAULT_SECURITY_FOLDER, LOGOUTS_FILE_NAME, logoutsSchema, securityConfigSchema, securityFileSchema, TOKENS_FILE_NAME, USERS_FILE_NAME,
  type GroupConfig, type ParsedSecurityFile, type RoleConfig, type SecurityConfig, type UserConfig,
} from './security-schema.js';
import { readDoc, readSecurityYaml, refuseProtoKeys, zodError } from './security-yaml.js';

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

  const add = (source: ParsedSecurityFile, file: string) => {
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

function readSecurityFile(file: string): ParsedSecurityFile {
  const { data, doc, lines } = readSecurityYaml(file);
  const parsed = securityFileSchema.safeParse(data);
  if (!parsed.success) throw zodError(parsed.error, file, [], { doc, lines });
  return parsed.data;
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
