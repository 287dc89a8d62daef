import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The console's session epochs (src/auth/session-epoch.repository.ts): signing out advances a name's epoch, revoking its cookies. */
export class AdminSessionEpoch1763700013500 implements MigrationInterface {
  name = 'AdminSessionEpoch1763700013500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE admin_session_epoch (
        name text PRIMARY KEY,
        epoch bigint NOT NULL,
        changed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE admin_session_epoch`);
  }
}
