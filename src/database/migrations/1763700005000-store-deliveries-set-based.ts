import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/load-sql.js';
import { STORE_DELIVERIES_ONE_BY_ONE } from './1763700000000-sync-log-and-inbox.js';

// The current definition lives in sql/crm_sync_store_deliveries.sql.
const STORE_DELIVERIES_SET_BASED = sqlFile('crm_sync_store_deliveries');

export class StoreDeliveriesSetBased1763700005000 implements MigrationInterface {
  name = 'StoreDeliveriesSetBased1763700005000';

  // The same function (signature, result, locks and answers) as one statement over the whole batch instead of a
  // loop of statements per delivery: about a fifth less Postgres time per stored webhook. Equal deliveries within
  // one batch are stored once, at the first, and counted as duplicates of it. The result type is unchanged, so
  // statements prepared by running replicas stay valid.
  async up(q: QueryRunner): Promise<void> {
    await q.query(STORE_DELIVERIES_SET_BASED);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION crm_sync_store_deliveries`);
    await q.query(STORE_DELIVERIES_ONE_BY_ONE);
  }
}
