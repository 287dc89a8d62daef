import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Alert messages and their throttle, shared by every replica: one row per message, sent or to be sent. A kind has at
 * most one `pending` row, into which the events of the interval are counted; it is claimed (`sending`, `sent_at`
 * set) once the kind's last message is at least the interval old, and ends `sent`, `failed` (with the error) or
 * `suppressed` (no ALERT_WEBHOOK_URL: recorded only).
 */
export class Alerts1763700009000 implements MigrationInterface {
  name = 'Alerts1763700009000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE alert (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'suppressed')),
        count int NOT NULL DEFAULT 0,
        entries text[] NOT NULL DEFAULT '{}',
        detail text NULL,
        text text NULL,
        error text NULL,
        http_status int NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX alert_pending_kind ON alert (kind) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX alert_kind_sent ON alert (kind, sent_at) WHERE sent_at IS NOT NULL`);
    await q.query(`CREATE INDEX alert_created ON alert (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE alert`);
  }
}
