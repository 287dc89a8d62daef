import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Suggestions may be `changed` (src/suggestions/suggestion.entity.ts): an accept found the project's or the record's
 * values changed since the look, so nothing was mapped.
 */
export class SuggestionChanged1763700015410 implements MigrationInterface {
  name = 'SuggestionChanged1763700015410';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mapping_suggestion DROP CONSTRAINT mapping_suggestion_status_check`);
    await q.query(
      `ALTER TABLE mapping_suggestion ADD CONSTRAINT mapping_suggestion_status_check
         CHECK (status IN ('none', 'open', 'accepted', 'dismissed', 'closed', 'changed'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE mapping_suggestion SET status = 'open' WHERE status = 'changed'`);
    await q.query(`ALTER TABLE mapping_suggestion DROP CONSTRAINT mapping_suggestion_status_check`);
    await q.query(
      `ALTER TABLE mapping_suggestion ADD CONSTRAINT mapping_suggestion_status_check CHECK (status IN ('none', 'open', 'accepted', 'dismissed', 'closed'))`,
    );
  }
}
