// Security layer: login sessions kept in memory: random 256-bit ids, idle and absolute expiry. A
// session names only its user; roles are resolved on every request, so disabling a user or removing
// a role takes effect at once.
import { randomBytes } from 'node:crypto';

export interface LoginSession {
  readonly id: string;
  readonly user: string;
  /** passwordIdOf the hash the login was checked against: the session ends when the password changes. */
  readonly passwordId: string;
  readonly created: number;
  lastSeen: number;
}

export interface SessionLimits {
  readonly idleMinutes: number;
  readonly absoluteHours: number;
}

const MAX_SESSIONS = 100_000;

export class SessionStore {
  readonly #sessions = new Map<string, LoginSession>();

  constructor(private readonly limits: SessionLimits, private readonly now: () => number = Date.now) {}

  /** A new session with a new id (never reuses one a client offered: no fixation). */
  create(user: string, passwordId: string): LoginSession {
    if (this.#sessions.size >= MAX_SESSIONS) this.#sweep();
    const id = randomBytes(32).toString('base64url');
    const t = this.now();
    const s: LoginSession = { id, user, passwordId, created: t, lastSeen: t };
    this.#sessions.set(id, s);
    return s;
  }

  /** The live session of an id, touched; undefined when unknown or expired (then it is removed). */
  get(id: string): LoginSession | undefined {
    const s = this.#sessions.get(id);
    if (!s) return undefined;
    const t = this.now();
    if (t - s.lastSeen > this.limits.idleMinutes * 60_000 || t - s.created > this.limits.absoluteHours * 3_600_000) {
      this.#sessions.delete(id);
      return undefined;
    }
    s.lastSeen = t;
    return s;
  }

  destroy(id: string): void {
    this.#sessions.delete(id);
  }

  /**
   * Ends every session of a user (disabled, removed, new password), or with `createdUpTo` those
   * created at or before that time (a logout recorded then).
   */
  destroyUser(user: string, createdUpTo = Infinity): void {
    for (const [id, s] of this.#sessions) if (s.user === user && s.created <= createdUpTo) this.#sessions.delete(id);
  }

  get size(): number {
    return this.#sessions.size;
  }

  #sweep(): void {
    for (const id of [...this.#sessions.keys()]) this.get(id);
    if (this.#sessions.size >= MAX_SESSIONS) {
      // Still full: drop the oldest, so a flood of logins cannot exhaust memory.
      const oldest = [...this.#sessions.values()].sort((a, b) => a.lastSeen - b.lastSeen).slice(0, MAX_SESSIONS / 10);
      for (const s of oldest) this.#sessions.delete(s.id);
    }
  }
}
