import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/load-sql.js';
import { RECORD_ACTIONS_WITHOUT_NOT_BEFORE } from './1763700004000-record-actions-function.js';

// The current definition (it sets not_before from the action's delay_ms) lives in sql/crm_sync_record_actions.sql.
const RECORD_ACTIONS_WITH_NOT_BEFORE = sqlFile('crm_sync_record_actions');

/**
 * The relay (transactional outbox): a stored delivery or action is put on its queue by the relay alone, which claims
 * the rows not enqueued yet. `enqueued_at` says a row's job was handed to the queue; `not_before` is when an action
 * may run (a burst of drawing events gathers behind it).
 */
export class RelayOutbox1763700006000 implements MigrationInterface {
  name = 'RelayOutbox1763700006000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_inbox ADD COLUMN enqueued_at timestamptz`);
    await q.query(`CREATE INDEX webhook_inbox_unqueued ON webhook_inbox (id) WHERE status = 'received' AND enqueued_at IS NULL`);
    await q.query(`ALTER TABLE sync_log ADD COLUMN enqueued_at timestamptz, ADD COLUMN not_before timestamptz`);
    // Work already running has a job; queued work is relayed again, and a job still live under its id makes that a no-op.
    await q.query(`UPDATE sync_log SET enqueued_at = updated_at WHERE status = 'running'`);
    await q.query(`CREATE INDEX sync_log_unqueued ON sync_log (id) WHERE status = 'queued' AND enqueued_at IS NULL`);
    await q.query(RECORD_ACTIONS_WITH_NOT_BEFORE);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(RECORD_ACTIONS_WITHOUT_NOT_BEFORE);
    await q.query(`DROP INDEX sync_log_unqueued`);
    await q.query(`ALTER TABLE sync_log DROP COLUMN enqueued_at, DROP COLUMN not_before`);
    await q.query(`DROP INDEX webhook_inbox_unqueued`);
    await q.query(`ALTER TABLE webhook_inbox DROP COLUMN enqueued_at`);
  }
}
