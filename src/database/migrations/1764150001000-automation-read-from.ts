import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `automation_poll.read_from`: the start an admin gave the reads (turning creation on, or a start_from). Each read of
 * the appointment CRM looks back behind its cursor (APPOINTMENT_CRM_POLL_LOOKBACK_SECONDS) for changes committed
 * late, but never before this start: what changed before it was meant to be left alone.
 */
export class AutomationReadFrom1764150001000 implements MigrationInterface {
  name = 'AutomationReadFrom1764150001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE automation_poll ADD COLUMN read_from text`);
    // The starts saved so far are unknown: the cursor as it stands is the safe floor for positions not read past yet.
    await q.query(`UPDATE automation_poll SET read_from = cursor WHERE last_run_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE automation_poll DROP COLUMN read_from`);
  }
}
