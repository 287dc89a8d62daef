import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What crm-sync knows of each project (src/projects/project.repository.ts): its name, customer and job number, from
 * project.created / project.updated and P4, so screens show names beside ids; and the name of each mapping's CRM
 * record (src/mappings/mapping.repository.ts).
 */
export class ProjectNames1763700014500 implements MigrationInterface {
  name = 'ProjectNames1763700014500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE project (
        project_id text PRIMARY KEY,
        name text NOT NULL,
        customer_name text,
        customer_email text,
        customer_phone text,
        job_number text,
        seen_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`ALTER TABLE mapping ADD COLUMN crm_record_name text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mapping DROP COLUMN crm_record_name`);
    await q.query(`DROP TABLE project`);
  }
}
