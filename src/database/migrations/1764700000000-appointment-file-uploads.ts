import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `appointment_file_upload`: each upload of an appointment's file sent and not yet answered
 * (src/appointment-crm/file-replace.repository.ts), and by when it would have landed if its answer is lost (a
 * time-out, a replica stopped in the middle of it): every replace of the appointment's files of that category,
 * whichever run or entry it is, lists the files only after that, so the listing holds it.
 */
export class AppointmentFileUploads1764700000000 implements MigrationInterface {
  name = 'AppointmentFileUploads1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE appointment_file_upload (
        id bigserial PRIMARY KEY,
        appointment_id text NOT NULL,
        category text NOT NULL,
        sent_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        lands_by timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX appointment_file_upload_appointment ON appointment_file_upload (appointment_id, category, lands_by)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE appointment_file_upload`);
  }
}
