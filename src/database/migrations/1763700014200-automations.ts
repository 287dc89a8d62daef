import type { MigrationInterface, QueryRunner } from 'typeorm';

const TRIGGERS_BEFORE = `'webhook', 'admin', 'schedule', 'reconcile'`;

/**
 * Projects from the CRMs (docs/automations.md): each CRM's automation settings (src/automation-settings), how far
 * each CRM's changes were read (src/automations), where a mapping came from, and the sync log's `automation` trigger.
 */
export class Automations1763700014200 implements MigrationInterface {
  name = 'Automations1763700014200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE automation_setting (
        crm text PRIMARY KEY CHECK (crm IN ('appointment', 'record')),
        settings jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        updated_by text NULL
      )`);
    await q.query(`
      CREATE TABLE automation_poll (
        crm text PRIMARY KEY CHECK (crm IN ('appointment', 'record')),
        cursor text NULL,
        page_token text NULL,
        last_run_at timestamptz NULL,
        last_error text NULL,
        last_entry_id bigint NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Existing mappings were made by hand or imported; an import cannot be told apart any more.
    await q.query(`ALTER TABLE mapping ADD COLUMN source text NOT NULL DEFAULT 'admin'`);
    await q.query(`ALTER TABLE sync_log DROP CONSTRAINT sync_log_trigger_check`);
    await q.query(`ALTER TABLE sync_log ADD CONSTRAINT sync_log_trigger_check CHECK (trigger IN (${TRIGGERS_BEFORE}, 'automation'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM sync_log WHERE trigger = 'automation'`);
    await q.query(`ALTER TABLE sync_log DROP CONSTRAINT sync_log_trigger_check`);
    await q.query(`ALTER TABLE sync_log ADD CONSTRAINT sync_log_trigger_check CHECK (trigger IN (${TRIGGERS_BEFORE}))`);
    await q.query(`ALTER TABLE mapping DROP COLUMN source`);
    await q.query(`DROP TABLE automation_poll`);
    await q.query(`DROP TABLE automation_setting`);
  }
}
