import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/load-sql.js';

/**
 * `crm_sync_record_routed`: records a routed delivery's actions and marks it routed with its project in one
 * UPDATE, instead of a separate UPDATE of `webhook_inbox.project_id` per delivery (src/database/sql/).
 * `crm_sync_record_actions` stays as it is for replicas still running the previous build.
 */
export class RecordRouted1763800070000 implements MigrationInterface {
  name = 'RecordRouted1763800070000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('crm_sync_record_routed'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION crm_sync_record_routed(jsonb, bigint, text)`);
  }
}
