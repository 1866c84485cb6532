// Notify layer: delivers change events to webhooks, at least once and in order per webhook. The change
// events are the outbox (written in each change's own transaction); per webhook the store keeps a
// cursor, a lease (one sender at a time, whichever instance) and a delivery log. A failed attempt is
// retried with exponential backoff until a day after the first, then marked failed and passed; later
// events wait meanwhile. The retry schedule is stored, so a restarted process picks it up.
import { randomUUID } from 'node:crypto';
import type { ContentStore } from '../store/content-store.js';
import type { ChangeEvent } from '../store/changes.js';
import type { WebhookDelivery } from '../store/webhook-log.js';
import { webhookPayload } from './webhook-events.js';
import { postWebhook, type WebhookTarget } from './post-webhook.js';

/** How often a sender looks for new changes: one cheap read (the newest sequence) per interval. */
export const WEBHOOK_POLL_MS = 100;
/** Events read per page. */
const PAGE = 100;

export interface Backoff {
  /** Wait after the first failed attempt; doubles after each (default 1 s). */
  readonly initialMs: number;
  /** Longest wait between attempts (default 10 min). */
  readonly maxMs: number;
  /** After this long since the first attempt, a delivery is marked failed (default 24 h). */
  readonly giveUpMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 600_000, giveUpMs: 86_400_000 };

/** pino's Logger fits. */
export interface SenderLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface WebhookSenderOptions {
  /** `publishing:` is on: publish events come from `<ws>@published` (webhook-events.ts). */
  readonly publishing: boolean;
  readonly log: SenderLog;
  readonly intervalMs?: number;
  readonly backoff?: Partial<Backoff>;
  /** How long a claim holds a webhook (tests); default its timeout + 30 s. */
  readonly leaseMs?: number;
  /** The clock of attempts and backoff (tests); leases use the database's. */
  readonly now?: () => number;
  /** Calls `poke` when a change is committed (PostgreSQL's notification); returns what stops it. */
  readonly wake?: (poke: () => void) => () => void;
}

export type SenderStore = Pick<ContentStore, 'changes' | 'webhooks'>;

interface HookState {
  readonly target: WebhookTarget;
  /** The newest cursor seen: nothing to do while the newest change is not after it. */
  known: number;
  /** No attempt is due before this (a backoff seen here or in the store). */
  wakeAt: number;
  running: Promise<void> | undefined;
}

export class WebhookSender {
  readonly #store: SenderStore;
  readonly #options: WebhookSenderOptions;
  readonly #backoff: Backoff;
  readonly #hooks: HookState[];
  /** Names this process's leases; a lease outlives any one attempt. */
  readonly #owner = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  /** A wake came while a poll ran: poll again when it ends (it may have read before the commit). */
  #again = false;
  #unwake: (() => void) | undefined;
  #stopped = false;

  constructor(store: SenderStore, targets: readonly WebhookTarget[], options: WebhookSenderOptions) {
    this.#store = store;
    this.#options = options;
    this.#backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.#hooks = targets.map((target) => ({ target, known: -1, wakeAt: 0, running: undefined }));
  }

  /**
   * Creates the cursors of new webhooks at the newest change (what happened before a webhook existed
   * is not sent), then polls every interval; the timer never keeps the process alive.
   */
  async start(): Promise<void> {
    for (const h of this.#hooks) {
      const claim = await this.#store.webhooks.claim(h.target.filter.name, this.#owner, this.#leaseMs(h));
      if (claim.acquired) await this.#store.webhooks.release(h.target.filter.name, this.#owner);
    }
    this.#tick();
    this.#timer = setInterval(() => this.#tick(), this.#options.intervalMs ?? WEBHOOK_POLL_MS);
    this.#timer.unref();
    this.#unwake = this.#options.wake?.(() => this.#tick(true));
  }

  /** No further attempts; resolves once those in flight have ended and their leases are given up. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#unwake?.();
    await this.#ticking;
    await Promise.all(this.#hooks.map((h) => h.running));
  }

  #tick(woken = false): void {
    if (this.#stopped) return;
    if (this.#ticking !== undefined) {
      if (woken) this.#again = true;
      return;
    }
    this.#ticking = this.#poll()
      .catch((err: unknown) => this.#options.log.error({ err }, 'webhooks: reading the change events failed (retried)'))
      .finally(() => {
        this.#ticking = undefined;
        if (this.#again) {
          this.#again = false;
          this.#tick();
        }
      });
  }

  async #poll(): Promise<void> {
    const latest = await this.#store.changes.latest();
    if (this.#stopped) return; // stop() came while reading: start nothing it would not wait for
    const now = this.#now();
    for (const h of this.#hooks) {
      if (h.running !== undefined || latest <= h.known || now < h.wakeAt) continue;
      h.running = this.#work(h)
        .catch((err: unknown) => this.#options.log.error({ err, webhook: h.target.filter.name }, 'webhooks: sending failed (retried)'))
        .finally(() => { h.running = undefined; });
    }
  }

  /** One turn on a webhook: under its lease, every event after the cursor, until caught up or a backoff. */
  async #work(h: HookState): Promise<void> {
    const name = h.target.filter.name;
    const log = this.#store.webhooks;
    const lease = this.#leaseMs(h);
    const claim = await log.claim(name, this.#owner, lease);
    h.known = claim.sequence;
    if (!claim.acquired) return; // another instance is sending it
    let cursor = claim.sequence;
    let saved = cursor;
    try {
      for (;;) {
        const events = await this.#store.changes.since(cursor, PAGE);
        if (events.length === 0) break;
        for (const event of events) {
          if (this.#stopped) return;
          const done = await this.#deliver(h, event);
          if (!done) return;
          cursor = event.sequence;
          // Skipped events need no write of their own: the next advance covers them.
          if (done === 'sent') {
            if (!(await log.advance(name, this.#owner, cursor, lease))) return; // the lease ran out and was taken
            saved = cursor;
          }
        }
      }
    } finally {
      if (cursor > saved) await log.advance(name, this.#owner, cursor, lease);
      h.known = cursor;
      await log.release(name, this.#owner);
    }
  }

  /** 'sent' once dealt with (delivered, or failed for good), 'skipped' when not for this webhook, false to wait. */
  async #deliver(h: HookState, event: ChangeEvent): Promise<'sent' | 'skipped' | false> {
    const payload = webhookPayload(h.target.filter, event, this.#options.publishing);
    if (payload === undefined) return 'skipped';
    const log = this.#store.webhooks;
    const before = await log.delivery(payload.id);
    // A sender that stopped between recording the outcome and moving the cursor: not sent again.
    if (before !== undefined && before.status !== 'pending') return 'sent';
    const now = this.#now();
    if (before?.nextAttemptAt !== undefined && Date.parse(before.nextAttemptAt) > now) {
      h.wakeAt = Date.parse(before.nextAttemptAt);
      return false;
    }
    const body = before?.body ?? JSON.stringify(payload);
    const result = await postWebhook(h.target, payload.id, body);
    const at = this.#now();
    const first = before?.firstAttemptAt ?? new Date(now).toISOString();
    const attempts = (before?.attempts ?? 0) + 1;
    const common = { id: payload.id, webhook: h.target.filter.name, sequence: event.sequence, event: payload.event, body, attempts, firstAttemptAt: first, lastAttemptAt: new Date(at).toISOString() };
    if (result.ok) {
      await log.saveDelivery({ ...common, status: 'delivered', deliveredAt: common.lastAttemptAt });
      return 'sent';
    }
    const deadline = Date.parse(first) + this.#backoff.giveUpMs;
    if (at >= deadline) {
      await log.saveDelivery({ ...common, status: 'failed', lastError: result.error });
      this.#options.log.warn({ webhook: h.target.filter.name, delivery: payload.id, attempts, error: result.error },
        `webhooks: ${payload.id} failed for good after ${attempts} attempts (petal webhooks retry ${payload.id} sends it again)`);
      return 'sent';
    }
    const next = Math.min(at + Math.min(this.#backoff.initialMs * 2 ** (attempts - 1), this.#backoff.maxMs), deadline);
    const pending: WebhookDelivery = { ...common, status: 'pending', lastError: result.error, nextAttemptAt: new Date(next).toISOString() };
    await log.saveDelivery(pending);
    h.wakeAt = next;
    this.#options.log.info({ webhook: h.target.filter.name, delivery: payload.id, attempts, error: result.error }, `webhooks: ${payload.id} not delivered, next attempt at ${pending.nextAttemptAt}`);
    return false;
  }

  /** Longer than any one attempt, so a lease held by a live sender never runs out mid-delivery. */
  #leaseMs(h: HookState): number {
    return this.#options.leaseMs ?? h.target.timeoutMs + 30_000;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }
}
