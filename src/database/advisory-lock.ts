import { Logger } from '@nestjs/common';
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

const logger = new Logger('AdvisoryLock');

/**
 * Runs `work` while holding a Postgres session-level advisory lock, serialising it across connections and replicas.
 * The lock is held on a connection of its own, opened for the call: it never ties up a pooled connection for the
 * length of the work, and a process that dies releases it with its session. The lock is released and the
 * connection closed however `work` ends.
 */
export async function withAdvisoryLock<T>(databaseUrl: string, key: AdvisoryLockKey, work: () => Promise<T>, options: AdvisoryLockOptions<T> = {}): Promise<T> {
  const { sql, param } = keyOf(key);
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS });
  // A connection lost while the work runs must not crash the process (an 'error' event without a listener does);
  // its session, and so the lock, is gone: say so.
  client.on('error', (err) => logger.warn(`the connection holding advisory lock ${describeKey(key)} was lost: ${err.message}`));
  await client.connect();
  try {
    if (options.ifTaken) {
      const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${sql}) AS locked`, [param]);
      if (!rows[0].locked) return await options.ifTaken();
    } else {
      await client.query(`SELECT pg_advisory_lock(${sql})`, [param]);
    }
    try {
      return await work();
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
