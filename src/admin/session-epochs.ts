import type { DatabaseService } from '../database/database.service.js';

/**
 * The session epoch of each token name, in `admin_session_epoch` (no row: 0). Every session cookie carries the epoch
 * it was made in; signing out moves the name on to the next one, so every earlier cookie of that name is refused by
 * every replica from the next request on. Read on each request made with a cookie: one primary-key lookup.
 */
export async function currentEpoch(database: DatabaseService, name: string): Promise<string> {
  const rows = await database.query<Array<{ epoch: string }>>(`SELECT epoch::text AS epoch FROM admin_session_epoch WHERE name = $1`, [name]);
  return rows[0]?.epoch ?? '0';
}

/** Ends every session of `name` made so far. */
export async function advanceEpoch(database: DatabaseService, name: string): Promise<void> {
  await database.query(
    `INSERT INTO admin_session_epoch (name, epoch) VALUES ($1, 1)
     ON CONFLICT (name) DO UPDATE SET epoch = admin_session_epoch.epoch + 1, changed_at = now()`,
    [name],
  );
}
