import type pg from 'pg';
import { waitFor } from './harness.js';

/** The backends holding (granted) or waiting for the advisory lock of `key`, as withAdvisoryLock takes it. */
export async function lockSessions(db: pg.Client, key: string): Promise<Array<{ pid: number; granted: boolean }>> {
  const { rows } = await db.query<{ pid: number; granted: boolean }>(
    `SELECT pid, granted FROM pg_locks
      WHERE locktype = 'advisory' AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`,
    [key],
  );
  return rows;
}

/**
 * Waits until one session holds the lock of `key` and another waits for it, then terminates the holder
 * (`pg_terminate_backend`, as a Postgres restart or a cut network would end it); whether Postgres did.
 */
export async function terminateHolderWhileAnotherWaits(db: pg.Client, key: string): Promise<boolean> {
  const holder = await waitFor(
    async () => {
      const sessions = await lockSessions(db, key);
      return sessions.some((s) => !s.granted) ? sessions.find((s) => s.granted) : null;
    },
    20_000,
    `a session holding ${key} and another waiting for it`,
  );
  const { rows } = await db.query<{ done: boolean }>(`SELECT pg_terminate_backend($1) AS done`, [holder.pid]);
  return rows[0].done;
}
