import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The revenue check (docs/operations.md, "Revenue that stays right"): `revenue_drift`, one row per difference between
 * the service's approved revenue and what a CRM holds now, per CRM record and kind, with the three values side by side
 * and what became of it (open, healed, accepted); `revenue_check_position`, where each source's changes pass and each
 * CRM's full pass go on from.
 */
export class RevenueDrifts1764200000000 implements MigrationInterface {
  name = 'RevenueDrifts1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE revenue_drift (
        id bigserial PRIMARY KEY,
        project_id text,
        proposal_id text NOT NULL,
        crm text NOT NULL CHECK (crm IN ('appointment', 'record')),
        target text NOT NULL,
        kind text NOT NULL,
        state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'healed', 'accepted')),
        service_value text,
        written_value text,
        written_entry_id bigint,
        crm_value text,
        changed_by text,
        changed_at timestamptz,
        by_crm_sync boolean NOT NULL DEFAULT false,
        link text,
        heal_kind text,
        approval_entry_id bigint,
        heal_entry_id bigint,
        accepted_service_value text,
        decided_by text,
        decided_at timestamptz,
        found_at timestamptz NOT NULL DEFAULT now(),
        seen_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX revenue_drift_record_kind ON revenue_drift (crm, target, kind)`);
    await q.query(`CREATE INDEX revenue_drift_state ON revenue_drift (state, id)`);
    await q.query(`CREATE INDEX revenue_drift_project ON revenue_drift (project_id, id)`);
    await q.query(`
      CREATE TABLE revenue_check_position (
        source text PRIMARY KEY,
        since timestamptz,
        after_key text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE revenue_check_position`);
    await q.query(`DROP TABLE revenue_drift`);
  }
}
