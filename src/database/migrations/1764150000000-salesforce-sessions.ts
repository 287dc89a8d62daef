import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `salesforce_session`: the session of a Salesforce connection that every replica shares (its access token, instance
 * and the refresh token to present next), sealed with CONNECTIONS_KEY. Under refresh-token rotation each refresh
 * invalidates the token it presented, so the one Salesforce answered must outlive every replica. Keyed by a hash of
 * the connection's login host, client id and the refresh token it was given (from the console or the environment).
 */
export class SalesforceSessions1764150000000 implements MigrationInterface {
  name = 'SalesforceSessions1764150000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE salesforce_session (
        grant_key text PRIMARY KEY,
        sealed text NOT NULL,
        refreshes integer NOT NULL DEFAULT 1,
        rotations integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE salesforce_session`);
  }
}
