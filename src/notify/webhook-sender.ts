// Notify layer: delivers change events to webhooks, at least once and in order per webhook. The change
// events are the outbox (written in each change's own transaction); per webhook the store keeps a
// cursor, a lease (one sender at a time, whichever instance) and a delivery log. A failed attempt is
// retried with exponential backoff until a day after the first, then marked failed and passed; later
// events wait meanwhile. The retry schedule is stored, so a restarted process picks it up. New events
// are heard of from the process's change follower (repository/change-follower.ts), whose batches a
// webhook at the follower's cursor sends without reading them again (event-window.ts).
import { randomUUID } from 'node:crypto';
import type { ContentStore } from '../store/content-store.js';
import type { ChangeEvent } from '../store/changes.js';
import type { ChangeFollower } from '../repository/change-follower.js';
import type { WebhookDelivery } from '../store/webhook-log.js';
import { webhookPayload } from './webhook-events.js';
import { postWebhook, type WebhookTarget } from './post-webhook.js';
import { EventWindow } from './event-window.js';
import type { NotifyLog } from './notify-log.js';

/** A turn that could not finish (the webhook leased elsewhere, the store failing) is tried again after this. */
export const WEBHOOK_RETRY_MS = 100;
/** Events read per page, and kept from the follower's batches. */
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

export type { NotifyLog as SenderLog } from './notify-log.js';

export interface WebhookSenderOptions {
  /** `publishing:` is on: publish events come from `<ws>@published` (webhook-events.ts). */
  readonly publishing: boolean;
  readonly log: NotifyLog;
  readonly retryMs?: number;
  readonly backoff?: Partial<Backoff>;
  /** How long a claim holds a webhook (tests); default its timeout + 30 s. */
  readonly leaseMs?: number;
  /** The clock of attempts and backoff (tests); leases use the database's. */
  readonly now?: () => number;
}

export type SenderStore = Pick<ContentStore, 'changes' | 'webhooks'>;

/** How a turn ended: every event sent, waiting for a retry's time, or to be tried again shortly. */
type TurnOutcome = 'caughtUp' | 'backoff' | 'again';

interface HookState {
  readonly target: WebhookTarget;
  /** The newest cursor seen: nothing to do while the newest change is not after it. */
  known: number;
  /** No attempt is due before this (a backoff seen here or in the store). */
  wakeAt: number;
  running: Promise<void> | undefined;
  /** Gives the webhook a turn at `wakeAt`. */
  timer: NodeJS.Timeout | undefined;
}

export class WebhookSender {
  readonly #store: SenderStore;
  readonly #changes: ChangeFollower;
  readonly #options: WebhookSenderOptions;
  readonly #backoff: Backoff;
  readonly #hooks: HookState[];
  /** Names this process's leases; a lease outlives any one attempt. */
  readonly #owner = randomUUID();
  /** The events the follower handed out lately, for the webhooks at its cursor. */
  #window = new EventWindow(undefined, PAGE);
  #unfollow: (() => void) | undefined;
  #stopped = false;

  constructor(store: SenderStore, changes: ChangeFollower, targets: readonly WebhookTarget[], options: WebhookSenderOptions) {
    this.#store = store;
    this.#changes = changes;
    this.#options = options;
    this.#backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.#hooks = targets.map((target) => ({ target, known: -1, wakeAt: 0, running: undefined, timer: undefined }));
  }

  /**
   * Creates the cursors of new webhooks at the newest change (what happened before a webhook existed
   * is not sent), then gives every webhook a turn from its stored cursor (a backlog left by an earlier
   * process), and a turn whenever the follower hands out events after it.
   */
  async start(): Promise<void> {
    for (const h of this.#hooks) {
      const claim = await this.#store.webhooks.claim(h.target.filter.name, this.#owner, this.#leaseMs(h));
      if (claim.acquired) await this.#store.webhooks.release(h.target.filter.name, this.#owner);
    }
    // In one step: the window starts at the cursor the follower hands out events after.
    this.#unfollow = this.#changes.follow((events, after) => this.#heard(events, after));
    this.#window = new EventWindow(this.#changes.stats().sequence, PAGE);
    for (const h of this.#hooks) this.#consider(h, true);
  }

  /** No further attempts; resolves once those in flight have ended and their leases are given up. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unfollow?.();
    for (const h of this.#hooks) clearTimeout(h.timer);
    await Promise.all(this.#hooks.map((h) => h.running));
  }

  #heard(events: readonly ChangeEvent[], after: number): void {
    this.#window.add(events, after);
    for (const h of this.#hooks) this.#consider(h);
  }

  /** Starts a turn on the webhook when it has events to send and no backoff runs; `force`: whatever it knows. */
  #consider(h: HookState, force = false): void {
    if (this.#stopped || h.running !== undefined) return;
    clearTimeout(h.timer);
    const now = this.#now();
    if (now < h.wakeAt) {
      h.timer = setTimeout(() => this.#consider(h), h.wakeAt - now);
      h.timer.unref();
      return;
    }
    const end = this.#window.end;
    if (!force && (end === undefined || end <= h.known)) return;
    h.running = this.#turn(h, end);
  }

  async #turn(h: HookState, end: number | undefined): Promise<void> {
    let outcome: TurnOutcome = 'again';
    const before = h.known;
    try {
      outcome = await this.#work(h);
    } catch (err) {
      this.#options.log.error({ err, webhook: h.target.filter.name }, 'webhooks: sending failed (retried)');
    }
    h.running = undefined;
    this.#window.dropThrough(Math.min(...this.#hooks.map((x) => x.known)));
    // Caught up without moving while the window says more is there (the store went back below the
    // window): looked at again later rather than at once, as a webhook leased elsewhere is.
    const stuck = outcome === 'caughtUp' && h.known === before && end === this.#window.end && (end ?? -1) > h.known;
    if (outcome === 'again' || stuck) h.wakeAt = this.#now() + (this.#options.retryMs ?? WEBHOOK_RETRY_MS);
    this.#consider(h);
  }

  /**
   * One turn on a webhook: under its lease, every event after the cursor, until caught up or a backoff.
   * The events come from the window when it reaches back to the cursor, else from the store a page at
   * a time: the stored cursor, never the follower's, says what is owed.
   */
  async #work(h: HookState): Promise<TurnOutcome> {
    const name = h.target.filter.name;
    const log = this.#store.webhooks;
    const lease = this.#leaseMs(h);
    const claim = await log.claim(name, this.#owner, lease);
    h.known = claim.sequence;
    if (!claim.acquired) return 'again'; // another instance is sending it
    let cursor = claim.sequence;
    let saved = cursor;
    try {
      for (;;) {
        const events = this.#window.after(cursor, PAGE) ?? await this.#store.changes.since(cursor, PAGE);
        if (events.length === 0) return 'caughtUp';
        for (const event of events) {
          if (this.#stopped) return 'again';
          const done = await this.#deliver(h, event);
          if (!done) return 'backoff';
          cursor = event.sequence;
          // Skipped events need no write of their own: the next advance covers them.
          if (done === 'sent') {
            if (!(await log.advance(name, this.#owner, cursor, lease))) return 'again'; // the lease ran out and was taken
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
