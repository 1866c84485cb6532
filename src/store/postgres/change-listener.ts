// PostgreSQL backend: one dedicated connection per store that LISTENs for the generations other
// instances commit (every import sends `NOTIFY <channel>, '<generation>'` in its transaction, so the
// notification leaves on commit). It reconnects with backoff when the connection drops, reads the
// generation again after every (re)connect (notifications sent while it was away are lost) and every
// few seconds (a safety net, and a liveness check of the connection). It reports when it loses the
// connection and what it reads once it is back, so that the store can tell a database that went back
// in time (restored from a backup, failed over to a replica that lagged) from one that moved on.
import pg from 'pg';
import { guardClient } from './guard-pool.js';
import { SQL, run } from './statements.js';

const MAX_BACKOFF_MS = 5_000;
const FIRST_BACKOFF_MS = 100;
const POLL_MS = 5_000;

/** The channel of a store: one per schema, so stores in other schemas of the same database stay apart. */
export function changeChannel(schema: string | undefined): string {
  // Channel names are identifiers: at most 63 bytes (the schema name is checked to be plain ASCII).
  return (schema === undefined ? 'petal_changes' : `petal_changes_${schema}`).slice(0, 63);
}

export interface ChangeListenerOptions {
  /** Connection settings of the primary (the same search_path as the store's pool). */
  readonly client: pg.ClientConfig;
  readonly channel: string;
  /** A generation seen: announced, or read after a (re)connect or by the periodic poll. */
  readonly onGeneration: (generation: number) => void;
  /** The connection was lost (a reconnect is scheduled): announcements may be missed until it is back. */
  readonly onLost?: () => void;
  /** LISTENing again after a loss, and the generation read right after LISTEN (also sent to `onGeneration`). */
  readonly onReconnected?: (generation: number) => void;
}

export class ChangeListener {
  readonly #options: ChangeListenerOptions;
  #client: pg.Client | undefined;
  #listening = false;
  #stopped = false;
  #attempt = 0;
  #retry: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  /** A connection was lost since the first one: the next successful connect is a reconnect. */
  #wasLost = false;

  constructor(options: ChangeListenerOptions) {
    this.#options = options;
  }

  /** True while the connection is up and LISTENing: no announced generation can have been missed. */
  get listening(): boolean {
    return this.#listening;
  }

  /** First connection; never throws (a failure schedules a reconnect). */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#listening = false;
    clearTimeout(this.#retry);
    clearInterval(this.#poll);
    const client = this.#client;
    this.#client = undefined;
    if (client) await client.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client({
      ...this.#options.client,
      // Tells a DBA (and a test) which connection listens for which store.
      application_name: `petal-listen ${this.#options.channel}`.slice(0, 63),
      keepAlive: true,
      query_timeout: 10_000,
    });
    this.#client = client;
    client.on('notification', (msg) => {
      if (msg.channel !== this.#options.channel || msg.payload === undefined) return;
      const generation = Number(msg.payload);
      if (Number.isSafeInteger(generation)) this.#options.onGeneration(generation);
    });
    guardClient(client, () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#options.channel}"`);
      // After LISTEN: a commit before it is in this read, one after it is announced.
      const generation = await this.#read(client);
      if (this.#client !== client) return; // lost (or stopped) meanwhile
      this.#listening = true;
      this.#attempt = 0;
      if (this.#wasLost && generation !== undefined) this.#options.onReconnected?.(generation);
      clearInterval(this.#poll);
      this.#poll = setInterval(() => {
        this.#read(client).catch(() => this.#lost(client));
      }, POLL_MS);
      this.#poll.unref();
    } catch {
      this.#lost(client);
    }
  }

  async #read(client: pg.Client): Promise<number | undefined> {
    const [row] = await run<{ value: string }>(client, SQL.generation);
    if (!row) return undefined;
    const generation = Number(row.value);
    this.#options.onGeneration(generation);
    return generation;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    const wasListening = this.#listening;
    this.#client = undefined;
    this.#listening = false;
    clearInterval(this.#poll);
    client.end().catch(() => undefined);
    if (this.#stopped) return;
    if (wasListening) {
      this.#wasLost = true;
      this.#options.onLost?.();
    }
    const base = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.#attempt++);
    this.#retry = setTimeout(() => void this.#connect(), base / 2 + Math.random() * (base / 2));
    this.#retry.unref();
  }
}
