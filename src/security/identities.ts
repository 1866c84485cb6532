// Security layer: who is who. Resolves users to role names (through nested groups) and checks passwords;
// immutable, so a reload builds a new instance and in-flight requests keep a consistent view.
import { passwordIdOf, verifyAgainstDummy, verifyPassword } from './password-hash.js';
import type { GroupConfig, RoleConfig, SecurityConfig, UserConfig } from '../config/security-schema.js';

// Longer inputs are refused without hashing them in full (scrypt pre-hashes the password with a cost
// linear in its length), but still after one dummy verification so the refusal takes the usual time.
const MAX_PASSWORD_LENGTH = 4096;

/** A stable key for a set of role names (sorted, deduplicated): caches keyed by it never mix rights. */
export function roleSetKey(roles: Iterable<string>): string {
  // Role names cannot contain a comma (NAME_PATTERN), so the join is unambiguous.
  return [...new Set(roles)].sort().join(',');
}

export class Identities {
  private readonly users: ReadonlyMap<string, UserConfig>;
  private readonly roles: ReadonlyMap<string, RoleConfig>;
  private readonly anonymous: readonly string[];
  private readonly authenticated: readonly string[];
  /** Roles of every enabled user, computed once: a request never walks the group graph. */
  private readonly rolesByUser: ReadonlyMap<string, readonly string[]>;
  /** passwordIdOf every enabled user's hash: what their tokens and sessions must still match. */
  private readonly passwordIds: ReadonlyMap<string, string>;

  constructor(config: SecurityConfig) {
    this.users = config.users;
    this.roles = config.roles;
    this.anonymous = Object.freeze([...new Set(config.anonymousRoles)].sort());
    this.authenticated = Object.freeze([...new Set(config.authenticatedRoles)].sort());
    const byUser = new Map<string, readonly string[]>();
    const ids = new Map<string, string>();
    for (const [name, user] of config.users) {
      if (!user.enabled) continue;
      byUser.set(name, Object.freeze(collectRoles(user, config.groups)));
      const id = passwordIdOf(user.passwordHash);
      if (id !== undefined) ids.set(name, id);
    }
    this.rolesByUser = byUser;
    this.passwordIds = ids;
  }

  /** Which password an enabled user has now (passwordIdOf their hash); undefined for unknown or disabled users. */
  passwordIdOf(user: string): string | undefined {
    return this.passwordIds.get(user);
  }

  /** Role names of an enabled user (direct and through groups, sorted); undefined for unknown or disabled users. */
  roleNamesOf(user: string): readonly string[] | undefined {
    return this.rolesByUser.get(user);
  }

  /** Roles every caller holds without credentials (sorted). */
  anonymousRoles(): readonly string[] {
    return this.anonymous;
  }

  /** Roles every signed-in caller holds besides their own (sorted). */
  authenticatedRoles(): readonly string[] {
    return this.authenticated;
  }

  role(name: string): RoleConfig | undefined {
    return this.roles.get(name);
  }

  /** The configured user, enabled or not. */
  user(name: string): UserConfig | undefined {
    return this.users.get(name);
  }

  /**
   * The user's role names when the password is right and the user is enabled, else undefined.
   * Exactly one scrypt verification runs on every path (unknown user, disabled user, wrong or
   * over-long password), so neither the answer nor its timing tells which one failed.
   */
  async authenticate(name: string, password: string): Promise<readonly string[] | undefined> {
    const user = this.users.get(name);
    if (user === undefined || password.length > MAX_PASSWORD_LENGTH) {
      await verifyAgainstDummy(password.slice(0, MAX_PASSWORD_LENGTH));
      return undefined;
    }
    const ok = await verifyPassword(password, user.passwordHash);
    if (!ok || !user.enabled) return undefined;
    return this.rolesByUser.get(name);
  }
}

function collectRoles(user: UserConfig, groups: ReadonlyMap<string, GroupConfig>): string[] {
  const roles = new Set(user.roles);
  const seen = new Set<string>();
  // Iterative walk; the config loader already rejected cycles, `seen` only avoids repeated work.
  const pending = [...user.groups];
  while (pending.length > 0) {
    const g = pending.pop()!;
    if (seen.has(g)) continue;
    seen.add(g);
    const group = groups.get(g);
    if (group === undefined) continue;
    for (const r of group.roles) roles.add(r);
    pending.push(...group.groups);
  }
  return [...roles].sort();
}
