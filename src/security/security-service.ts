// Security layer: the running security state: who the caller is (anonymous, Basic, session, token),
// what their roles allow (URI rules and workspace ACLs, compiled once per role set), login sessions and
// the login throttle. Reloaded whole when the configuration changes; roles are resolved per request.
import { createHash } from 'node:crypto';
import type { ReadRule } from '../query/glob.js';
import type { ReadAccess } from '../repository/session.js';
import { readTokens, verifyToken, type TokenRecord } from './api-tokens.js';
import { Identities, roleSetKey } from './identities.js';
import { LoginThrottle } from './login-throttle.js';
import type { SecurityConfig } from './security-config.js';
import { SessionStore } from './sessions.js';
import { compileUriRules, type UriAccess } from './uri-permissions.js';
import { compileAcl, type AclRule } from './workspace-acl.js';

export const SESSION_COOKIE = 'petal_session';

export interface Caller {
  /** Undefined for anonymous callers. */
  readonly user?: string;
  readonly roles: readonly string[];
  readonly via: 'anonymous' | 'basic' | 'token' | 'session';
  readonly sessionId?: string;
  /** Cache key of the role set: responses and compiled rules are shared only by equal keys. */
  readonly roleKey: string;
}

export type Identification =
  | { readonly ok: true; readonly caller: Caller }
  /** Credentials were sent but are wrong, unknown or expired (always the same answer). */
  | { readonly ok: false; readonly retryAfter?: number };

export interface RequestCredentials {
  readonly authorization?: string;
  readonly sessionId?: string;
  /** Client address, for the login throttle. */
  readonly client: string;
}

const BASIC_CACHE_MS = 60_000;

export class SecurityService {
  #config: SecurityConfig;
  #identities: Identities;
  #tokens: readonly TokenRecord[];
  #uri = new Map<string, UriAccess>();
  #read = new Map<string, ReadAccess>();
  /** Successful Basic credentials by hash, so every request does not pay a scrypt (cleared on reload). */
  #basic = new Map<string, { user: string; until: number }>();
  readonly sessions: SessionStore;
  readonly throttle = new LoginThrottle();
  #anonymous: Caller | undefined;

  constructor(config: SecurityConfig) {
    this.#config = config;
    this.#identities = new Identities(config);
    this.#tokens = readTokens(config.tokensFile);
    this.sessions = new SessionStore(config.session);
  }

  get config(): SecurityConfig {
    return this.#config;
  }

  /** Takes a new configuration: compiled rules and cached credentials are dropped, sessions stay. */
  reload(config: SecurityConfig): void {
    this.#config = config;
    this.#identities = new Identities(config);
    this.#anonymous = undefined;
    this.#tokens = readTokens(config.tokensFile);
    this.#uri = new Map();
    this.#read = new Map();
    this.#basic = new Map();
  }

  anonymous(): Caller {
    // One shared object per configuration: the anonymous caller is the hot path.
    this.#anonymous ??= Object.freeze({ roles: this.#identities.anonymousRoles(), via: 'anonymous' as const, roleKey: roleSetKey(this.#identities.anonymousRoles()) });
    return this.#anonymous;
  }

  /** Roles of a signed-in user: their own plus the anonymous ones (a user can do what anyone can). */
  #callerFor(user: string, via: Caller['via'], sessionId?: string): Caller | undefined {
    const own = this.#identities.roleNamesOf(user);
    if (own === undefined) return undefined; // unknown or disabled: effective at once
    const roles = [...new Set([...own, ...this.#identities.anonymousRoles()])].sort();
    return { user, roles, via, roleKey: roleSetKey(roles), ...(sessionId !== undefined ? { sessionId } : {}) };
  }

  async identify(c: RequestCredentials): Promise<Identification> {
    const auth = c.authorization;
    if (auth !== undefined && auth !== '') {
      const space = auth.indexOf(' ');
      const scheme = (space < 0 ? auth : auth.slice(0, space)).toLowerCase();
      const value = space < 0 ? '' : auth.slice(space + 1).trim();
      if (scheme === 'bearer') {
        const user = verifyToken(value, this.#tokens);
        const caller = user === undefined ? undefined : this.#callerFor(user, 'token');
        return caller ? { ok: true, caller } : { ok: false };
      }
      if (scheme === 'basic') return this.#basicLogin(value, c.client);
      return { ok: false };
    }
    if (c.sessionId !== undefined) {
      const s = this.sessions.get(c.sessionId);
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
    if (hit && hit.until > Date.now()) {
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
    this.#basic.set(key, { user, until: Date.now() + BASIC_CACHE_MS });
    if (this.#basic.size > 10_000) this.#basic.delete(this.#basic.keys().next().value!);
    const caller = this.#callerFor(user, 'basic');
    return caller ? { ok: true, caller } : { ok: false };
  }

  /** Checks a password under the per-client throttle; every failure looks the same. */
  async checkPassword(user: string, password: string, client: string): Promise<{ ok: true } | { ok: false; retryAfter?: number }> {
    const wait = this.throttle.retryAfter(client);
    if (wait > 0) return { ok: false, retryAfter: wait };
    const roles = await this.#identities.authenticate(user, password);
    if (roles === undefined) {
      this.throttle.fail(client);
      return { ok: false };
    }
    return { ok: true };
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
      const byWorkspace: Record<string, AclRule[]> = Object.create(null) as Record<string, AclRule[]>;
      for (const r of caller.roles) {
        for (const [ws, rules] of this.#identities.role(r)?.workspacePermissions ?? []) {
          (byWorkspace[ws] ??= []).push(...rules);
        }
      }
      const acl = compileAcl(byWorkspace);
      const rulesCache = new Map<string, readonly ReadRule[] | null>();
      a = {
        canRead: (ws, path) => acl.canRead(ws, path),
        rulesFor: (ws) => {
          let rules = rulesCache.get(ws);
          if (rules === undefined) {
            rules = acl.readsAll(ws) ? null : acl.rulesFor(ws).map((x) => ({ pattern: x.path, read: x.grantsRead }));
            rulesCache.set(ws, rules);
          }
          return rules;
        },
      };
      this.#read.set(caller.roleKey, a);
    }
    return a;
  }

  /** Workspaces the anonymous caller may read nothing of (for a start-up hint). */
  anonymousReadsNothing(workspace: string): boolean {
    const access = this.readAccess(this.anonymous());
    const rules = access.rulesFor(workspace);
    return rules !== null && !rules.some((r) => r.read);
  }
}
