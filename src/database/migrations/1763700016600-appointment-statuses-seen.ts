import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The appointment statuses the automations' reads have seen (`appointment_status_seen`,
 * src/appointment-crm/appointment-statuses.repository.ts): what the Automations screen offers when the appointment CRM
 * does not list its statuses (`GET /statuses` is optional in docs/appointment-crm.md).
 */
export class AppointmentStatusesSeen1763700016600 implements MigrationInterface {
  name = 'AppointmentStatusesSeen1763700016600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE appointment_status_seen (status text PRIMARY KEY, last_seen_at timestamptz NOT NULL DEFAULT now())`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE appointment_status_seen`);
  }
}
