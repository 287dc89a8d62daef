import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The record CRM automation's Zoho notification channel (`record_notification_channel`,
 * src/automations/notification-channel.repository.ts): one row, its token sealed with the connections key.
 */
export class RecordNotificationChannel1763800020000 implements MigrationInterface {
  name = 'RecordNotificationChannel1763800020000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE record_notification_channel (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      channel_id text NOT NULL,
      module text NOT NULL,
      notify_url text NOT NULL,
      sealed_token text NOT NULL,
      expires_at timestamptz NOT NULL,
      made_at timestamptz NOT NULL DEFAULT now(),
      renewed_at timestamptz NOT NULL DEFAULT now(),
      last_notified_at timestamptz,
      last_error text,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE record_notification_channel`);
  }
}
