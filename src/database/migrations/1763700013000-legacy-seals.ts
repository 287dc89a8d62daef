import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Marks the connections sealed before their secrets were bound to their plain settings (`v1.` seals). A migration
 * cannot re-seal them: the key is CONNECTIONS_KEY or a file only the daemon reads (and may have to generate), and a
 * migration that failed on a missing key would stop every start. So the daemon re-seals a marked row the first time it
 * reads it (ConnectionsService), and clears the mark; a `v1.` seal on an unmarked row (copied in afterwards) is refused.
 */
export class LegacySeals1763700013000 implements MigrationInterface {
  name = 'LegacySeals1763700013000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connection ADD COLUMN legacy_seal boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE connection SET legacy_seal = true WHERE sealed_secrets LIKE 'v1.%'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connection DROP COLUMN legacy_seal`);
  }
}
