import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AppointmentDrawingState1763700003000 implements MigrationInterface {
  name = 'AppointmentDrawingState1763700003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE appointment_drawing_push (
        appointment_id text NOT NULL,
        drawing_id text NOT NULL,
        drawing_version_id text NOT NULL,
        pushed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (appointment_id, drawing_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE appointment_drawing_push`);
  }
}
