import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The latest replace started of each appointment's files of a category (src/appointment-crm/file-replace.repository.ts):
 * a replace that a newer one overtook deletes only its own uploads, so two interleaved replaces end with the newer
 * one's files, with or without the advisory lock.
 */
export class AppointmentFileReplaces1763700015300 implements MigrationInterface {
  name = 'AppointmentFileReplaces1763700015300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE appointment_file_replace (
        appointment_id text NOT NULL,
        category text NOT NULL,
        latest_run bigint NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (appointment_id, category)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE appointment_file_replace`);
  }
}
