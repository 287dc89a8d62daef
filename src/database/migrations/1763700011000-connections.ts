import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Connections set from the console (`connection`: plain settings, and the secrets sealed with CONNECTIONS_KEY; a
 * `revision` every replica polls), the outcome of each connection's last check (`connection_check`, also for
 * environment connections), the single-use states of Zoho's OAuth consent (`oauth_state`, only hashes of the state
 * and of the browser binding), and the hash of the admin token made on the first start (`admin_credential`).
 */
export class Connections1763700011000 implements MigrationInterface {
  name = 'Connections1763700011000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connection (
        name text PRIMARY KEY CHECK (name IN ('service', 'appointment_crm', 'record_crm', 'webhooks')),
        settings jsonb NOT NULL DEFAULT '{}',
        sealed_secrets text NOT NULL,
        revision bigint NOT NULL DEFAULT 1,
        updated_at timestamptz NOT NULL DEFAULT now(),
        updated_by text
      )`);
    await q.query(`
      CREATE TABLE connection_check (
        name text PRIMARY KEY,
        ok boolean NOT NULL,
        detail text,
        checked_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE oauth_state (
        state_hash text PRIMARY KEY,
        binding_hash text NOT NULL,
        actor text NOT NULL,
        sealed_request text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE admin_credential (
        name text PRIMARY KEY,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE admin_credential`);
    await q.query(`DROP TABLE oauth_state`);
    await q.query(`DROP TABLE connection_check`);
    await q.query(`DROP TABLE connection`);
  }
}
