// SQLite backend: webhook cursors and deliveries (store/webhook-log.ts). Claims and updates run in the
// store's write queue, in IMMEDIATE transactions: the write lock makes a claim atomic against other
// processes on the file (another server, `petal webhooks retry`). Reads use the reading connection.
import type Database from 'better-sqlite3';
import { deliveriesPage, toDelivery, type DeliveryFilter, type WebhookClaim, type WebhookCursor, type WebhookDelivery, type WebhookLog } from '../webhook-log.js';

/** Migration 9 (see migrations.ts). Instants are ISO text (UTC, milliseconds): text order is time order. */
export const WEBHOOKS_SQL = `
-- Per webhook: the last change sequence dealt with, and who may send it now (a lease).
CREATE TABLE webhook_cursors (
  name        TEXT    PRIMARY KEY,
  sequence    INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until TEXT
) WITHOUT ROWID;
-- One row per (webhook, event) sent: its attempts and outcome (petal webhooks log).
CREATE TABLE webhook_deliveries (
  id               TEXT    PRIMARY KEY,
  webhook          TEXT    NOT NULL,
  sequence         INTEGER NOT NULL,
  event            TEXT    NOT NULL,
  body             TEXT    NOT NULL,
  status           TEXT    NOT NULL,
  attempts         INTEGER NOT NULL,
  first_attempt_at TEXT    NOT NULL,
  last_attempt_at  TEXT    NOT NULL,
  next_attempt_at  TEXT,
  last_error       TEXT,
  delivered_at     TEXT
) WITHOUT ROWID;
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (last_attempt_at);
`;

const COLUMNS = `id, webhook, sequence, event, body, status, attempts, first_attempt_at, last_attempt_at, next_attempt_at,
  last_error, delivered_at`;

function writes(db: Database.Database) {
  return {
    // `WHERE true`: after a bare `FROM changes`, SQLite would read ON CONFLICT as a join's ON.
    create: db.prepare('INSERT INTO webhook_cursors (name, sequence) SELECT ?, coalesce(max(seq), 0) FROM changes WHERE true ON CONFLICT (name) DO NOTHING'),
    claim: db.prepare(`UPDATE webhook_cursors SET lease_owner = ?, lease_until = ?
      WHERE name = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?) RETURNING sequence`),
    cursor: db.prepare('SELECT sequence FROM webhook_cursors WHERE name = ?'),
    advance: db.prepare('UPDATE webhook_cursors SET sequence = max(sequence, ?), lease_until = ? WHERE name = ? AND lease_owner = ?'),
    release: db.prepare('UPDATE webhook_cursors SET lease_owner = NULL, lease_until = NULL WHERE name = ? AND lease_owner = ?'),
    save: db.prepare(`
      INSERT INTO webhook_deliveries (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET body = excluded.body, status = excluded.status, attempts = excluded.attempts,
        last_attempt_at = excluded.last_attempt_at, next_attempt_at = excluded.next_attempt_at,
        last_error = excluded.last_error, delivered_at = excluded.delivered_at`),
  };
}

function reads(db: Database.Database) {
  return {
    cursors: db.prepare('SELECT name, sequence, lease_owner, lease_until FROM webhook_cursors ORDER BY name'),
    one: db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = ?`),
    list: db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE (@webhook IS NULL OR webhook = @webhook)
      AND (@status IS NULL OR status = @status) ORDER BY last_attempt_at DESC, id DESC LIMIT @limit`),
  };
}

type DeliveryRow = Parameters<typeof toDelivery>[0];
const until = (leaseMs: number): string => new Date(Date.now() + leaseMs).toISOString();

export class SqliteWebhookLog implements WebhookLog {
  // Prepared once per connection (a store reopened has new ones).
  readonly #writes = new WeakMap<Database.Database, ReturnType<typeof writes>>();
  readonly #reads = new WeakMap<Database.Database, ReturnType<typeof reads>>();

  /**
   * @param reader the reading connection
   * @param write runs `fn` in the store's write queue on the writer connection
   */
  constructor(
    private readonly reader: () => Database.Database,
    private readonly write: <T>(fn: (db: Database.Database) => T) => Promise<T>,
  ) {}

  #w<T>(fn: (s: ReturnType<typeof writes>) => T): Promise<T> {
    return this.write((db) => {
      let s = this.#writes.get(db);
      if (!s) this.#writes.set(db, (s = writes(db)));
      const statements = s;
      return db.transaction(() => fn(statements)).immediate();
    });
  }

  get #r(): ReturnType<typeof reads> {
    const db = this.reader();
    let s = this.#reads.get(db);
    if (!s) this.#reads.set(db, (s = reads(db)));
    return s;
  }

  claim(name: string, owner: string, leaseMs: number): Promise<WebhookClaim> {
    return this.#w((s) => {
      s.create.run(name);
      const won = s.claim.get(owner, until(leaseMs), name, owner, new Date().toISOString()) as { sequence: number } | undefined;
      if (won !== undefined) return { acquired: true, sequence: won.sequence };
      return { acquired: false, sequence: (s.cursor.get(name) as { sequence: number }).sequence };
    });
  }

  advance(name: string, owner: string, sequence: number, leaseMs: number): Promise<boolean> {
    return this.#w((s) => s.advance.run(sequence, until(leaseMs), name, owner).changes === 1);
  }

  async release(name: string, owner: string): Promise<void> {
    await this.#w((s) => s.release.run(name, owner));
  }

  async cursors(): Promise<WebhookCursor[]> {
    const rows = this.#r.cursors.all() as { name: string; sequence: number; lease_owner: string | null; lease_until: string | null }[];
    return rows.map((r) => ({
      name: r.name, sequence: r.sequence,
      ...(r.lease_owner !== null && r.lease_until !== null ? { leaseOwner: r.lease_owner, leaseUntil: r.lease_until } : {}),
    }));
  }

  async saveDelivery(d: WebhookDelivery): Promise<void> {
    await this.#w((s) => s.save.run(d.id, d.webhook, d.sequence, d.event, d.body, d.status, d.attempts, d.firstAttemptAt,
      d.lastAttemptAt, d.nextAttemptAt ?? null, d.lastError ?? null, d.deliveredAt ?? null));
  }

  async delivery(id: string): Promise<WebhookDelivery | undefined> {
    const row = this.#r.one.get(id) as DeliveryRow | undefined;
    return row && toDelivery(row);
  }

  async deliveries(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    return (this.#r.list.all({ webhook: filter.webhook ?? null, status: filter.status ?? null, limit: deliveriesPage(filter.limit) }) as DeliveryRow[]).map(toDelivery);
  }
}
