import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where a mapping's CRM record opens in its CRM, when the CRM gives it (an appointment's optional `web_url`,
 * docs/appointment-crm.md): kept beside its name (src/mappings/crm-links.service.ts). Zoho's are made, not kept.
 */
export class RecordUrls1763700016400 implements MigrationInterface {
  name = 'RecordUrls1763700016400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mapping ADD COLUMN crm_record_url text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mapping DROP COLUMN crm_record_url`);
  }
}
