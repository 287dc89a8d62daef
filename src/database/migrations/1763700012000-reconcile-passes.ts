import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the changes pass of reconciliation last saw of each proposal (R3): its fingerprint, and `stamp`, its place in
 * R3's activity order as last seen (higher: more recent), so a proposal that moved up without a field changing (a
 * payment) is noticed. A full pass keeps its position in its sync log entry's payload.
 */
export class ReconcilePasses1763700012000 implements MigrationInterface {
  name = 'ReconcilePasses1763700012000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE reconcile_proposal (
        proposal_id text PRIMARY KEY,
        project_id text NOT NULL,
        fingerprint text NOT NULL,
        stamp bigint NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE reconcile_proposal`);
  }
}
