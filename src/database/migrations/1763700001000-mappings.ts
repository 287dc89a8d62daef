import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Mappings1763700001000 implements MigrationInterface {
  name = 'Mappings1763700001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mapping (
        id bigserial PRIMARY KEY,
        crm text NOT NULL CHECK (crm IN ('appointment', 'record')),
        appointment_id text NULL,
        record_crm_module text NULL CHECK (record_crm_module IN ('Deals', 'Quotes', 'Leads', 'Contacts')),
        record_crm_record_id text NULL,
        project_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'associated', 'failed')),
        error text NULL,
        claimed_by bigint NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((crm = 'appointment' AND appointment_id IS NOT NULL AND record_crm_module IS NULL AND record_crm_record_id IS NULL)
            OR (crm = 'record' AND appointment_id IS NULL AND record_crm_module IS NOT NULL AND record_crm_record_id IS NOT NULL))
      )`);
    // An appointment maps to one project and a project to at most one appointment (A2 refuses a second one);
    // likewise for records, whose pushes need a single target per project.
    await q.query(`CREATE UNIQUE INDEX mapping_appointment ON mapping (appointment_id) WHERE crm = 'appointment'`);
    await q.query(`CREATE UNIQUE INDEX mapping_appointment_project ON mapping (project_id) WHERE crm = 'appointment'`);
    await q.query(`CREATE UNIQUE INDEX mapping_record ON mapping (record_crm_module, record_crm_record_id) WHERE crm = 'record'`);
    await q.query(`CREATE UNIQUE INDEX mapping_record_project ON mapping (project_id) WHERE crm = 'record'`);
    await q.query(`CREATE INDEX mapping_pending ON mapping (crm, id) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mapping`);
  }
}
