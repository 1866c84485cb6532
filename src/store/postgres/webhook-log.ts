// PostgreSQL backend: webhook cursors and deliveries (store/webhook-log.ts), shared by every instance
// on the database: a sender claims a webhook's cursor row with FOR UPDATE SKIP LOCKED inside the
// claiming statement and a lease on the database clock, so one instance at a time sends its events.
import type pg from 'pg';
import { deliveriesPage, toDelivery, type DeliveryFilter, type WebhookClaim, type WebhookCursor, type WebhookDelivery, type WebhookLog } from '../webhook-log.js';
import { exec, run, type Statement } from './statements.js';

/** Migration 9 (see migrations.ts). */
export const WEBHOOKS_SQL = `
-- Per webhook: the last change sequence dealt with, and who may send it now (a lease).
CREATE TABLE webhook_cursors (
  name        text        PRIMARY KEY COLLATE "C",
  sequence    bigint      NOT NULL,
  lease_owner text,
  lease_until timestamptz
);
-- One row per (webhook, event) sent: its attempts and outcome (petal webhooks log).
CREATE TABLE webhook_deliveries (
  id               text        PRIMARY KEY COLLATE "C",
  webhook          text        NOT NULL COLLATE "C",
  sequence         bigint      NOT NULL,
  event            text        NOT NULL,
  body             text        NOT NULL,
  status           text        NOT NULL,
  attempts         integer     NOT NULL,
  first_attempt_at timestamptz NOT NULL,
  last_attempt_at  timestamptz NOT NULL,
  next_attempt_at  timestamptz,
  last_error       text,
  delivered_at     timestamptz
);
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (last_attempt_at);
`;

const s = (name: string, text: string): Statement => ({ name: `petal_w_${name}`, text });
const LEASE = "now() + $3::int8 * interval '1 millisecond'";
const COLUMNS = `id, webhook, sequence::int8 AS sequence, event, body, status, attempts, first_attempt_at, last_attempt_at,
  next_attempt_at, last_error, delivered_at`;

const SQL = {
  create: s('create', 'INSERT INTO webhook_cursors (name, sequence) SELECT $1, coalesce(max(seq), 0) FROM changes ON CONFLICT (name) DO NOTHING'),
  claim: s('claim', `
    WITH free AS (
      SELECT name FROM webhook_cursors
      WHERE name = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
      FOR UPDATE SKIP LOCKED
    )
    UPDATE webhook_cursors c SET lease_owner = $2, lease_until = ${LEASE} FROM free WHERE c.name = free.name
    RETURNING c.sequence::int8 AS sequence`),
  cursor: s('cursor', 'SELECT sequence::int8 AS sequence FROM webhook_cursors WHERE name = $1'),
  advance: s('advance', `UPDATE webhook_cursors SET sequence = greatest(sequence, $4::int8), lease_until = ${LEASE}
    WHERE name = $1 AND lease_owner = $2`),
  release: s('release', 'UPDATE webhook_cursors SET lease_owner = NULL, lease_until = NULL WHERE name = $1 AND lease_owner = $2'),
  cursors: s('cursors', 'SELECT name, sequence::int8 AS sequence, lease_owner, lease_until FROM webhook_cursors ORDER BY name'),
  save: s('save', `
    INSERT INTO webhook_deliveries (id, webhook, sequence, event, body, status, attempts, first_attempt_at, last_attempt_at,
      next_attempt_at, last_error, delivered_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
    ON CONFLICT (id) DO UPDATE SET body = excluded.body, status = excluded.status, attempts = excluded.attempts,
      last_attempt_at = excluded.last_attempt_at, next_attempt_at = excluded.next_attempt_at,
      last_error = excluded.last_error, delivered_at = excluded.delivered_at`),
  one: s('one', `SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = $1`),
  /** $1 webhook or NULL, $2 status or NULL. */
  list: s('list', `SELECT ${COLUMNS} FROM webhook_deliveries
    WHERE ($1::text IS NULL OR webhook = $1) AND ($2::text IS NULL OR status = $2)
    ORDER BY last_attempt_at DESC, id DESC LIMIT $3`),
} as const;

interface DeliveryRow {
  id: string; webhook: string; sequence: string; event: string; body: string; status: string; attempts: number;
  first_attempt_at: Date; last_attempt_at: Date; next_attempt_at: Date | null; last_error: string | null; delivered_at: Date | null;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const fromRow = (r: DeliveryRow): WebhookDelivery => toDelivery({
  ...r, first_attempt_at: r.first_attempt_at.toISOString(), last_attempt_at: r.last_attempt_at.toISOString(),
  next_attempt_at: iso(r.next_attempt_at), delivered_at: iso(r.delivered_at),
});
/** PostgreSQL text cannot hold U+0000 (an error message might). */
const text = (value: string | undefined): string | null => (value === undefined ? null : value.replaceAll('\u0000', '\uFFFD'));

export class PostgresWebhookLog implements WebhookLog {
  constructor(private readonly pool: () => pg.Pool) {}

  async claim(name: string, owner: string, leaseMs: number): Promise<WebhookClaim> {
    const db = this.pool();
    await exec(db, SQL.create, [name]);
    const [won] = await run<{ sequence: string }>(db, SQL.claim, [name, owner, Math.ceil(leaseMs)]);
    if (won !== undefined) return { acquired: true, sequence: Number(won.sequence) };
    const [row] = await run<{ sequence: string }>(db, SQL.cursor, [name]);
    return { acquired: false, sequence: Number(row?.sequence ?? 0) };
  }

  async advance(name: string, owner: string, sequence: number, leaseMs: number): Promise<boolean> {
    return (await exec(this.pool(), SQL.advance, [name, owner, Math.ceil(leaseMs), sequence])) === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await exec(this.pool(), SQL.release, [name, owner]);
  }

  async cursors(): Promise<WebhookCursor[]> {
    const rows = await run<{ name: string; sequence: string; lease_owner: string | null; lease_until: Date | null }>(this.pool(), SQL.cursors);
    return rows.map((r) => ({
      name: r.name, sequence: Number(r.sequence),
      ...(r.lease_owner !== null && r.lease_until !== null ? { leaseOwner: r.lease_owner, leaseUntil: r.lease_until.toISOString() } : {}),
    }));
  }

  async saveDelivery(d: WebhookDelivery): Promise<void> {
    await exec(this.pool(), SQL.save, [d.id, d.webhook, d.sequence, d.event, d.body, d.status, d.attempts, d.firstAttemptAt,
      d.lastAttemptAt, d.nextAttemptAt ?? null, text(d.lastError), d.deliveredAt ?? null]);
  }

  async delivery(id: string): Promise<WebhookDelivery | undefined> {
    if (id.includes('\u0000')) return undefined;
    const [row] = await run<DeliveryRow>(this.pool(), SQL.one, [id]);
    return row && fromRow(row);
  }

  async deliveries(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    const rows = await run<DeliveryRow>(this.pool(), SQL.list, [text(filter.webhook), filter.status ?? null, deliveriesPage(filter.limit)]);
    return rows.map(fromRow);
  }
}
