import pg from 'pg';
import { CONNECTION_TIMEOUT_MS } from './data-source-options.js';

/**
 * An advisory lock's key: a bigint constant (a number must be a safe integer), or a text, which Postgres hashes to
 * one with `hashtextextended(text, 0)`.
 */
export type AdvisoryLockKey = number | bigint | string;

export interface AdvisoryLockOptions<T> {
  /**
   * Do not wait: when another session holds the lock, answer this instead of running the work. Without it, the call
   * waits until the lock is free.
   */
  ifTaken?: () => T | Promise<T>;
}

/**
 * The lock's session ended while the work ran (Postgres restarted, the backend terminated, the network cut): another
 * session may hold the lock now. Transient: the action runs again later, under the lock.
 */
export class LockLostError extends Error {
  constructor(key: AdvisoryLockKey, cause: string) {
    super(`advisory lock ${describeKey(key)} was lost while its work ran (${cause}); stopped before its next write`);
    this.name = 'LockLostError';
  }
}

/** Throws the LockLostError of a lost lock: called before each write to a CRM made under the lock. */
export function assertLockHeld(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}

/** How soon an idle lock connection is probed by TCP keepalive, so that a cut network is noticed, not only a closed connection. */
const KEEPALIVE_DELAY_MS = 5_000;

/**
 * Runs `work` while holding a Postgres session-level advisory lock, serialising it across connections and replicas.
 * The lock is held on a connection of its own, opened for the call: it never ties up a pooled connection for the
 * length of the work, and a process that dies releases it with its session. The lock is released and the
 * connection closed however `work` ends.
 *
 * The connection is watched: when it ends while the work runs, the lock is gone (another session may take it at
 * once) and `signal` aborts with a LockLostError. Work that writes outside Postgres checks it (`assertLockHeld`)
 * before each write, or is written to converge without the lock (docs/guarantees.md, "When a lock is lost").
 */
export async function withAdvisoryLock<T>(
  databaseUrl: string,
  key: AdvisoryLockKey,
  work: (signal: AbortSignal) => Promise<T>,
  options: AdvisoryLockOptions<T> = {},
): Promise<T> {
  const { sql, param } = keyOf(key);
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  const lost = new AbortController();
  const loseLock = (cause: string) => {
    if (!lost.signal.aborted) lost.abort(new LockLostError(key, cause));
  };
  // An 'error' event without a listener would crash the process; either event means the session, and the lock, is gone.
  client.on('error', (err) => loseLock(err.message));
  client.on('end', () => loseLock('its connection ended'));
  await client.connect();
  try {
    if (options.ifTaken) {
      const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${sql}) AS locked`, [param]);
      if (!rows[0].locked) return await options.ifTaken();
    } else {
      await client.query(`SELECT pg_advisory_lock(${sql})`, [param]);
    }
    try {
      return await work(lost.signal);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${sql})`, [param]).catch(() => undefined); // ending the session releases it too
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

function keyOf(key: AdvisoryLockKey): { sql: string; param: string } {
  if (typeof key === 'string') return { sql: 'hashtextextended($1, 0)', param: key };
  if (typeof key === 'number' && !Number.isSafeInteger(key)) throw new Error(`advisory lock key ${key} is not a safe integer`);
  return { sql: '$1::bigint', param: String(key) };
}

function describeKey(key: AdvisoryLockKey): string {
  return typeof key === 'string' ? JSON.stringify(key) : String(key);
}
