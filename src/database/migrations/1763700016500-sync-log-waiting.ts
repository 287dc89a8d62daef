import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `waiting`: an action done on crm-sync's side that the other system holds (a Zoho update held by its approval
 * process, `$approval_state`), an outcome of its own beside succeeded, failed and skipped.
 */
export class SyncLogWaiting1763700016500 implements MigrationInterface {
  name = 'SyncLogWaiting1763700016500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sync_log DROP CONSTRAINT sync_log_status_check`);
    await q.query(
      `ALTER TABLE sync_log ADD CONSTRAINT sync_log_status_check CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'skipped', 'waiting'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE sync_log SET status = 'succeeded' WHERE status = 'waiting'`);
    await q.query(`ALTER TABLE sync_log DROP CONSTRAINT sync_log_status_check`);
    await q.query(`ALTER TABLE sync_log ADD CONSTRAINT sync_log_status_check CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'skipped'))`);
  }
}
