import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The funnel (src/funnel/): how many records each CRM's reads saw and how many qualified, counted per hour
 * (`automation_read_hour`, src/automations/automation-reads.repository.ts: the schedule's reads leave no sync log
 * entry), and an index that keeps the funnel's one scan of the sync log to the window's entries of the kinds it
 * counts, whatever the size of the log (docs/performance.md, "The funnel").
 */
export class Funnel1763700016300 implements MigrationInterface {
  name = 'Funnel1763700016300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE automation_read_hour (
        crm text NOT NULL CHECK (crm IN ('appointment', 'record')),
        hour timestamptz NOT NULL,
        records_read bigint NOT NULL DEFAULT 0,
        qualifying bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (crm, hour)
      )`);
    await q.query(`CREATE INDEX sync_log_funnel ON sync_log (created_at, crm) INCLUDE (kind, status) WHERE crm IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX sync_log_funnel`);
    await q.query(`DROP TABLE automation_read_hour`);
  }
}
