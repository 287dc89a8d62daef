import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/load-sql.js';
import { RECORD_ACTIONS_WITH_NOT_BEFORE } from './1763700006000-relay-outbox.js';

// The current definition (it stores the action's actor) lives in sql/crm_sync_record_actions.sql.
const RECORD_ACTIONS_WITH_ACTOR = sqlFile('crm_sync_record_actions');

/**
 * Who made an admin write: `actor` is the name of the token (or console session) behind an entry an admin route
 * created, null for the daemon's own work.
 */
export class Actor1763700007000 implements MigrationInterface {
  name = 'Actor1763700007000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sync_log ADD COLUMN actor text`);
    await q.query(RECORD_ACTIONS_WITH_ACTOR);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(RECORD_ACTIONS_WITH_NOT_BEFORE);
    await q.query(`ALTER TABLE sync_log DROP COLUMN actor`);
  }
}
