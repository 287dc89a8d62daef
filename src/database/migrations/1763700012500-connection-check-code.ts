import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The stable code of a failed connection check (src/connections/check-codes.ts), beside its text; null when it passed. */
export class ConnectionCheckCode1763700012500 implements MigrationInterface {
  name = 'ConnectionCheckCode1763700012500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connection_check ADD COLUMN code text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connection_check DROP COLUMN code`);
  }
}
