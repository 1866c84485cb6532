// PostgreSQL backend: every pool and client of Petal listens for 'error'. node-postgres emits it when a
// connection dies (backend terminated, server restart or failover, network cut); an EventEmitter
// without a listener throws it, which ends the process. pg-pool listens only while a client is idle in
// the pool, not while a caller holds it (pool.connect() … release()), so a transaction whose backend is
// terminated between two queries would crash Petal. The request using the connection learns of the
// loss anyway (its query rejects, or the next one does), and the pool drops a dead client on release.
import type pg from 'pg';

const guarded = new WeakSet<pg.Pool>();

/** What to do with an error nobody waits for: nothing (the caller's query reports it), or log it. */
export type LostConnectionHandler = (err: Error) => void;

const ignore: LostConnectionHandler = () => undefined;

/**
 * Makes `pool` safe against lost connections: an idle client's error is absorbed (the pool has
 * already removed it), and every client it creates keeps a listener of its own while checked out.
 * Idempotent: a pool shared by the content store and the shop store is guarded once.
 */
export function guardPool(pool: pg.Pool, onLost: LostConnectionHandler = ignore): pg.Pool {
  if (guarded.has(pool)) return pool;
  guarded.add(pool);
  pool.on('error', (err) => onLost(err));
  pool.on('connect', (client) => guardClient(client, onLost));
  return pool;
}

/** A client outside a pool (a LISTEN connection, a one-off setup connection): same rule. */
export function guardClient<C extends pg.ClientBase>(client: C, onLost: LostConnectionHandler = ignore): C {
  client.on('error', (err) => onLost(err));
  return client;
}
