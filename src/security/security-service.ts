// Security layer: the running security state: who the caller is (anonymous, Basic, session, token),
// what their roles allow (URI rules and workspace ACLs, compiled once per role set), login sessions and
// the login throttle. Reloaded whole when the configuration changes; roles are resolved per request.
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { ByteLru, stringBytes } from '../cache/byte-lru.js';
import type { ReadRule } from '../query/glob.js';
import type { ReadAccess } from '../repository/session.js';
import { findToken, readTokens, tokenPasswordCurrent, type TokenRecord } from './api-tokens.js';
import { GATE_FULL, HashGate } from './hash-gate.js';
import { Identities, roleSetKey } from './identities.js';
import { LoginThrottle } from './login-throttle.js';
import { needsRehash, passwordIdOf, rehashPassword } from './password-hash.js';
import type { SecurityConfig, UserConfig } from '../config/security-schema.js';
import { SessionStore, type LoginSession } from './sessions.js';
import { compileUriRules, type UriAccess } from './uri-permissions.js';
import { replacePasswordHash } from './users-file.js';
import {
  compileAcl, subtreeWritable, type AclDecisionCache, type AclPermission, type AclRule, type CompiledAclRule, type WorkspaceAccess,
} from './workspace-acl.js';

/** Write decisions of one caller; a node they may not read is one they may not write. */
export interface WriteAccess {
  canRead(workspace: string, path: string): boolean;
  /** readWrite on this node (creating a child under it, changing it). */
  mayWrite(workspace: string, path: string): boolean;
  /** readWrite on this node and on everything that is or could be below it (replacing, deleting). */
  mayReplaceSubtree(workspace: string, path: string): boolean;
}

export const SESSION_COOKIE = 'petal_session';

export interface Caller {
  /** Undefined for anonymous callers. */
  readonly user?: string;
  readonly roles: readonly string[];
  /** `schedule`: no request, a scheduled publish checked with its author's rights (writeAccessOf). */
  readonly via: 'anonymous' | 'basic' | 'token' | 'session' | 'schedule';
  readonly sessionId?: string;
  /** Cache key of the role set: responses and compiled rules are shared only by equal keys. */
  readonly roleKey: string;
}

/**
 * A refused password check: wrong credentials (no `retryAfter`), a throttled client (`retryAfter`),
 * or too many checks in flight server-wide (`busy`, with `retryAfter`): 401, 429 and 503 respectively.
 */
export interface Refusal {
  readonly ok: false;
  readonly retryAfter?: number;
  readonly busy?: true;
}

export type Identification =
  | { readonly ok: true; readonly caller: Caller }
  /** Credentials were sent but are wrong, unknown or expired (always the same answer). */
  | Refusal;

export interface SecurityServiceOptions {
  /** Operator warnings (e.g. a hash that cannot be upgraded); none by default. */
  readonly warn?: (message: string) => void;
}

export interface RequestCredentials {
  readonly authorization?: string;
  readonly sessionId?: string;
  /** Client address, for the login throttle. */
  readonly client: string;
}

const BASIC_CACHE_MS = 60_000;
const BASIC_CACHE_BYTES = 2 * 1024 * 1024;

export class SecurityService {
  #config: SecurityConfig;
  #identities: Identities;
  #tokens: readonly TokenRecord[];
  #uri = new Map<string, UriAccess>();
  #read = new Map<string, ReadAccess>();
  #acl = new Map<string, WorkspaceAccess>();
  /** Successful Basic credentials by hash, so every request does not pay a scrypt (cleared on reload). */
  #basic = new ByteLru<string, { user: string; passwordId: string; until: number }>(BASIC_CACHE_BYTES);
  /** Workspace-permission decisions of every role set, bounded in bytes (cleared on reload). */
  #aclCache: AclDecisionCache;
  readonly sessions: SessionStore;
  readonly throttle = new LoginThrottle();
  readonly #gate: HashGate;
  readonly #rehashing = new Set<string>();
  readonly #warned = new Set<string>();
  readonly #warn: (message: string) => void;
  #anonymous: Caller | undefined;

  constructor(config: SecurityConfig, options: SecurityServiceOptions = {}) {
    this.#config = config;
    this.#identities = new Identities(config);
    this.#warn = options.warn ?? (() => undefined);
    this.#tokens = this.#readTokens(config);
    this.sessions = new SessionStore(config.session);
    this.#aclCache = new ByteLru<string, AclPermission>(config.aclCacheMaxBytes);
    this.#gate = new HashGate({ maxConcurrent: config.login.maxConcurrentHashes, maxQueued: config.login.maxQueuedHashes });
  }

  get config(): SecurityConfig {
    return this.#config;
  }

  /**
   * Takes a new configuration: compiled rules, permission decisions and cached credentials are dropped.
   * Sessions stay, except those of users removed, disabled or given a new password, and those a
   * logout (logouts.yaml) ended. API tokens of a user given a new password no longer match it.
   */
  reload(config: SecurityConfig): void {
    // Read first: a broken tokens.yaml must leave the previous configuration whole, not half replaced.
    const tokens = this.#readTokens(config);
    const before = this.#config.users;
    this.#config = config;
    this.#identities = new Identities(config);
    this.#anonymous = undefined;
    this.#tokens = tokens;
    this.#uri = new Map();
    this.#read = new Map();
    this.#acl = new Map();
    this.#basic = new ByteLru(BASIC_CACHE_BYTES);
    this.#aclCache = new ByteLru(config.aclCacheMaxBytes);
    this.#gate.limits = { maxConcurrent: config.login.maxConcurrentHashes, maxQueued: config.login.maxQueuedHashes };
    for (const [name, old] of before) {
      if (this.#credentialsChanged(old, config.users.get(name))) this.sessions.destroyUser(name);
    }
    for (const [name, at] of config.logouts) this.sessions.destroyUser(name, at);
  }

  /** Removed, disabled, or a new password; an upgraded hash (same salt, rehashPassword) is the same password. */
  #credentialsChanged(old: UserConfig, now: UserConfig | undefined): boolean {
    return now === undefined || !now.enabled || passwordIdOf(now.passwordHash) !== passwordIdOf(old.passwordHash);
  }

  /** The tokens file, with a warning (once per token) for records not bound to a password. */
  #readTokens(config: SecurityConfig): readonly TokenRecord[] {
    const records = readTokens(config.tokensFile);
    for (const r of records) {
      if (r.passwordId !== undefined || this.#warned.has(`token ${r.name}`)) continue;
      this.#warned.add(`token ${r.name}`);
      this.#warn(`${config.tokensFile}: token ${r.name} (user ${r.user}) was created before tokens were bound to their user's password, so a password changed by editing the users file does not end it; replace it (petal token revoke ${r.name}, then petal token create)`);
    }
    return records;
  }

  /** True while `user` is enabled and still has the password `passwordId` stands for. */
  #samePassword(user: string, passwordId: string): boolean {
    return this.#identities.passwordIdOf(user) === passwordId;
  }

  /**
   * The live session of an id, or undefined (unknown, expired, opened with a password the user no
   * longer has, or ended by a logout). The password is compared on every request, so a login that was
   * being checked while the password changed cannot outlive the change.
   */
  #session(id: string): LoginSession | undefined {
    const s = this.sessions.get(id);
    if (s === undefined) return undefined;
    const notBefore = this.#config.logouts.get(s.user);
    if (!this.#samePassword(s.user, s.passwordId) || (notBefore !== undefined && s.created <= notBefore)) {
      this.sessions.destroy(s.id);
      return undefined;
    }
    return s;
  }

  anonymous(): Caller {
    // One shared object per configuration: the anonymous caller is the hot path.
    this.#anonymous ??= Object.freeze({ roles: this.#identities.anonymousRoles(), via: 'anonymous' as const, roleKey: roleSetKey(this.#identities.anonymousRoles()) });
    return this.#anonymous;
  }

  /**
   * Roles of a signed-in user: their own plus `security.authenticatedRoles`, never the anonymous ones
   * (as in the original CMS: a deny meant for the public does not bind editors).
   */
  #callerFor(user: string, via: Caller['via'], sessionId?: string): Caller | undefined {
    const own = this.#identities.roleNamesOf(user);
    if (own === undefined) return undefined; // unknown or disabled: effective at once
    const roles = [...new Set([...own, ...this.#identities.authenticatedRoles()])].sort();
    return { user, roles, via, roleKey: roleSetKey(roles), ...(sessionId !== undefined ? { sessionId } : {}) };
  }

  async identify(c: RequestCredentials): Promise<Identification> {
    const auth = c.authorization;
    if (auth !== undefined && auth !== '') {
      const space = auth.indexOf(' ');
      const scheme = (space < 0 ? auth : auth.slice(0, space)).toLowerCase();
      const value = space < 0 ? '' : auth.slice(space + 1).trim();
      if (scheme === 'bearer') {
        const record = findToken(value, this.#tokens);
        const current = record !== undefined && tokenPasswordCurrent(record, this.#identities.passwordIdOf(record.user));
        const caller = current ? this.#callerFor(record.user, 'token') : undefined;
        return caller ? { ok: true, caller } : { ok: false };
      }
      if (scheme === 'basic') return this.#basicLogin(value, c.client);
      return { ok: false };
    }
    if (c.sessionId !== undefined) {
      const s = this.#session(c.sessionId);
      const caller = s && this.#callerFor(s.user, 'session', s.id);
      if (caller) return { ok: true, caller };
      if (s) this.sessions.destroy(s.id);
      // An unknown or expired session is no credential: the caller is anonymous (the cookie is cleared).
    }
    return { ok: true, caller: this.anonymous() };
  }

  async #basicLogin(value: string, client: string): Promise<Identification> {
    const key = createHash('sha256').update(value).digest('hex');
    const hit = this.#basic.get(key);
    if (hit && hit.until > Date.now() && this.#samePassword(hit.user, hit.passwordId)) {
      const caller = this.#callerFor(hit.user, 'basic');
      if (caller) return { ok: true, caller };
    }
    let decoded = '';
    try {
      decoded = Buffer.from(value, 'base64').toString('utf8');
    } catch {
      decoded = '';
    }
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? decoded : decoded.slice(0, colon);
    const password = colon < 0 ? '' : decoded.slice(colon + 1);
    const result = await this.checkPassword(user, password, client);
    if (!result.ok) return result;
    // The password may have changed while it was being checked: then it is refused, and not cached.
    if (!this.#samePassword(user, result.passwordId)) return { ok: false };
    this.#basic.set(key, { user, passwordId: result.passwordId, until: Date.now() + BASIC_CACHE_MS }, stringBytes(key) + stringBytes(user) + 40);
    const caller = this.#callerFor(user, 'basic');
    return caller ? { ok: true, caller } : { ok: false };
  }

  /**
   * Checks a password under the per-client throttle and the server-wide bound on hashes in flight;
   * every wrong password looks the same. The attempt is counted before hashing, so concurrent
   * attempts of one client cannot all pass the throttle; a success or a refusal for load gives it back.
   * A success carries the passwordId of the hash the password matched, to bind a session to it.
   */
  async checkPassword(user: string, password: string, client: string): Promise<{ ok: true; passwordId: string } | Refusal> {
    const attempt = this.throttle.attempt(client);
    if (!attempt.ok) return { ok: false, retryAfter: attempt.retryAfter };
    const identities = this.#identities;
    const roles = await this.#gate.run(() => identities.authenticate(user, password));
    if (roles === GATE_FULL) {
      this.throttle.succeeded(attempt.attempt);
      return { ok: false, busy: true, retryAfter: 1 };
    }
    const passwordId = identities.passwordIdOf(user);
    if (roles === undefined || passwordId === undefined) return { ok: false };
    this.throttle.succeeded(attempt.attempt);
    await this.#upgradeHash(user, password, identities);
    return { ok: true, passwordId };
  }

  /**
   * After a successful login: a hash made with weaker parameters than today's is replaced in its
   * file (atomically, and only if unchanged meanwhile). Users of petal.yaml cannot be rewritten: a
   * warning says so once. Failures only warn: the login itself has succeeded. The salt is kept, so
   * the password's id, and with it the user's sessions and tokens on every instance, stay.
   */
  async #upgradeHash(user: string, password: string, identities: Identities): Promise<void> {
    const old = identities.user(user)?.passwordHash;
    if (old === undefined || !needsRehash(old) || this.#rehashing.has(user)) return;
    const file = this.#config.definedIn.users.get(user);
    if (file === undefined || dirname(file) !== this.#config.folder) {
      if (!this.#warned.has(user)) {
        this.#warned.add(user);
        this.#warn(`user ${user}: the password hash uses weaker scrypt parameters than today's default; it is defined in ${file ?? 'petal.yaml'}, which Petal does not rewrite: set a new hash there (petal user add writes ${this.#config.usersFile})`);
      }
      return;
    }
    this.#rehashing.add(user);
    try {
      const next = await this.#gate.run(() => rehashPassword(password, old));
      if (next === GATE_FULL) return; // busy: the next login tries again
      replacePasswordHash(file, user, old, next);
    } catch (err) {
      this.#warn(`user ${user}: could not upgrade the password hash in ${file}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.#rehashing.delete(user);
    }
  }

  uriAccess(caller: Caller): UriAccess {
    let a = this.#uri.get(caller.roleKey);
    if (!a) {
      const rules = caller.roles.flatMap((r) => this.#identities.role(r)?.uriPermissions ?? []);
      a = compileUriRules(rules);
      this.#uri.set(caller.roleKey, a);
    }
    return a;
  }

  readAccess(caller: Caller): ReadAccess {
    let a = this.#read.get(caller.roleKey);
    if (!a) {
      const acl = this.#workspaceAccess(caller);
      // By the compiled rules, not the workspace name: workspaces without rules of their own share
      // one list, so names a request makes up (the Nodes API takes any) never grow the map.
      const rulesCache = new Map<readonly CompiledAclRule[], readonly ReadRule[] | null>();
      a = {
        canRead: (ws, path) => acl.canRead(ws, path),
        rulesFor: (ws) => {
          const compiled = acl.rulesFor(ws);
          let rules = rulesCache.get(compiled);
          if (rules === undefined) {
            rules = acl.readsAll(ws) ? null : compiled.map((x) => ({ pattern: x.path, read: x.grantsRead }));
            rulesCache.set(compiled, rules);
          }
          return rules;
        },
      };
      this.#read.set(caller.roleKey, a);
    }
    return a;
  }

  /** What the caller may write in the workspaces (imports; later the nodes API). */
  writeAccess(caller: Caller): WriteAccess {
    const acl = this.#workspaceAccess(caller);
    return {
      canRead: (ws, path) => acl.canRead(ws, path),
      mayWrite: (ws, path) => acl.permissionAt(ws, path) === 'readWrite',
      mayReplaceSubtree: (ws, path) => subtreeWritable(acl, ws, path),
    };
  }

  /**
   * What `user` (undefined: the anonymous caller) may write as the configuration says now, as
   * writeAccess gives it to their requests; undefined for a user unknown or disabled. For a scheduled
   * publish, checked when it runs with its author's rights of then.
   */
  writeAccessOf(user: string | undefined): WriteAccess | undefined {
    const caller = user === undefined ? this.anonymous() : this.#callerFor(user, 'schedule');
    return caller === undefined ? undefined : this.writeAccess(caller);
  }

  #workspaceAccess(caller: Caller): WorkspaceAccess {
    let acl = this.#acl.get(caller.roleKey);
    if (!acl) {
      const byWorkspace: Record<string, AclRule[]> = Object.create(null) as Record<string, AclRule[]>;
      for (const r of caller.roles) {
        for (const [ws, rules] of this.#identities.role(r)?.workspacePermissions ?? []) {
          (byWorkspace[ws] ??= []).push(...rules);
        }
      }
      acl = compileAcl(byWorkspace, { cache: this.#aclCache, cacheKey: caller.roleKey });
      this.#acl.set(caller.roleKey, acl);
    }
    return acl;
  }

  /** Size of the workspace-permission decision cache (for tests and monitoring). */
  aclCacheStats(): { entries: number; bytes: number; maxBytes: number; evictions: number } {
    return this.#aclCache.stats();
  }

  /** Workspaces the anonymous caller may read nothing of (for a start-up hint). */
  anonymousReadsNothing(workspace: string): boolean {
    const access = this.readAccess(this.anonymous());
    const rules = access.rulesFor(workspace);
    return rules !== null && !rules.some((r) => r.read);
  }
}
