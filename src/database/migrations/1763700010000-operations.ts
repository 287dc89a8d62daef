import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operations API's columns on `webhook_inbox`: `project_id` (the project a delivery concerns, written when it is
 * routed; null before, and for deliveries that name none) so a project's deliveries are found by index, and
 * `replays` (how many times an admin replayed the delivery), which keeps each replay's actions apart from the first
 * routing's.
 */
export class Operations1763700010000 implements MigrationInterface {
  name = 'Operations1763700010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_inbox ADD COLUMN project_id text, ADD COLUMN replays int NOT NULL DEFAULT 0`);
    await q.query(`CREATE INDEX webhook_inbox_project ON webhook_inbox (project_id, id) WHERE project_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_inbox_project`);
    await q.query(`ALTER TABLE webhook_inbox DROP COLUMN project_id, DROP COLUMN replays`);
  }
}
