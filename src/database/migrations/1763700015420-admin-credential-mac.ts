import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `admin_credential.token_mac`: the HMAC of the row under the server's secret (src/auth/session-secret.ts
 * `credentialMac`), so that a hash written into the table by anyone but the daemon is not taken as an admin token.
 * Rows from before have none and are refused on load (docs/security.md, "The first-start token": how to replace one).
 */
export class AdminCredentialMac1763700015420 implements MigrationInterface {
  name = 'AdminCredentialMac1763700015420';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_credential ADD COLUMN token_mac text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_credential DROP COLUMN token_mac`);
  }
}
