// Store layer: what the webhook sender keeps per webhook (notify/webhook-sender.ts). The change events
// (changes.ts) are the outbox: each is written in its change's own transaction, so a webhook needs only
// a cursor (the last sequence it has dealt with) and a log of its deliveries. A lease on the cursor lets
// one sender at a time work on a webhook, whichever instance it runs in.

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event's delivery to one webhook, over all its attempts. */
export interface WebhookDelivery {
  /** `<webhook>-<sequence>`: the same on every attempt (receivers use it to drop duplicates). */
  readonly id: string;
  readonly webhook: string;
  readonly sequence: number;
  /** `published`, `unpublished`, `changed` or `imported`. */
  readonly event: string;
  /** The JSON POSTed (signed anew on every attempt). */
  readonly body: string;
  /** `pending` while attempts go on; `delivered` after a 2xx; `failed` once retries gave up. */
  readonly status: DeliveryStatus;
  readonly attempts: number;
  /** ISO 8601 instants (UTC). */
  readonly firstAttemptAt: string;
  readonly lastAttemptAt: string;
  /** When the next attempt is due (pending only). */
  readonly nextAttemptAt?: string;
  /** Why the last attempt failed: an HTTP status or a network error. */
  readonly lastError?: string;
  readonly deliveredAt?: string;
}

export interface WebhookCursor {
  readonly name: string;
  /** The last change sequence the webhook has dealt with (delivered, failed or skipped). */
  readonly sequence: number;
  readonly leaseOwner?: string;
  /** ISO instant the lease ends. */
  readonly leaseUntil?: string;
}

export interface WebhookClaim {
  /** True when the caller now holds the lease (until it releases it or the lease runs out). */
  readonly acquired: boolean;
  readonly sequence: number;
}

export interface DeliveryFilter {
  readonly webhook?: string;
  readonly status?: DeliveryStatus;
  /** Most rows, newest attempt first (clamped to 1..1,000). */
  readonly limit: number;
}

/** Most deliveries one `deliveries` call returns. */
export const DELIVERIES_PAGE_MAX = 1_000;

/**
 * Webhook cursors and the delivery log, on the store's primary database. Leases are what keep two
 * instances from sending one event twice: PostgreSQL claims the cursor row with FOR UPDATE SKIP LOCKED
 * in the claiming statement, SQLite under its write lock.
 */
export interface WebhookLog {
  /**
   * Creates the webhook's cursor when it has none, at the newest change (a new webhook is not sent
   * the history), then takes its lease for `leaseMs` when it is free, expired or already the caller's.
   */
  claim(name: string, owner: string, leaseMs: number): Promise<WebhookClaim>;
  /**
   * Moves the cursor forward to `sequence` (never back) and extends the lease; false, and nothing
   * written, when `owner` no longer holds it (another sender took over after it ran out).
   */
  advance(name: string, owner: string, sequence: number, leaseMs: number): Promise<boolean>;
  /** Gives the lease up (when `owner` holds it). */
  release(name: string, owner: string): Promise<void>;
  /** Every webhook cursor, by name. */
  cursors(): Promise<WebhookCursor[]>;
  /** Records a delivery's state after an attempt: inserted on the first, updated after (its first attempt kept). */
  saveDelivery(delivery: WebhookDelivery): Promise<void>;
  delivery(id: string): Promise<WebhookDelivery | undefined>;
  /** Deliveries, newest attempt first. */
  deliveries(filter: DeliveryFilter): Promise<WebhookDelivery[]>;
}

export function deliveriesPage(limit: number): number {
  return Number.isFinite(limit) ? Math.min(Math.max(Math.floor(limit), 1), DELIVERIES_PAGE_MAX) : DELIVERIES_PAGE_MAX;
}

/** A stored delivery row (instants as ISO text) as a WebhookDelivery. */
export function toDelivery(r: {
  id: string; webhook: string; sequence: number | string; event: string; body: string; status: string; attempts: number;
  first_attempt_at: string; last_attempt_at: string; next_attempt_at: string | null; last_error: string | null; delivered_at: string | null;
}): WebhookDelivery {
  return {
    id: r.id, webhook: r.webhook, sequence: Number(r.sequence), event: r.event, body: r.body, status: r.status as DeliveryStatus,
    attempts: r.attempts, firstAttemptAt: r.first_attempt_at, lastAttemptAt: r.last_attempt_at,
    ...(r.next_attempt_at !== null ? { nextAttemptAt: r.next_attempt_at } : {}),
    ...(r.last_error !== null ? { lastError: r.last_error } : {}),
    ...(r.delivered_at !== null ? { deliveredAt: r.delivered_at } : {}),
  };
}
