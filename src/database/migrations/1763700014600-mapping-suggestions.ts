import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Suggested mappings (src/suggestions/suggestion.repository.ts): one row per project and CRM, ever. It remembers what
 * was looked for (`looked_for`, so a project is searched again only when its matched fields change), the candidates
 * found and what became of them.
 */
export class MappingSuggestions1763700014600 implements MigrationInterface {
  name = 'MappingSuggestions1763700014600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mapping_suggestion (
        id bigserial PRIMARY KEY,
        project_id text NOT NULL,
        crm text NOT NULL CHECK (crm IN ('appointment', 'record')),
        status text NOT NULL CHECK (status IN ('none', 'open', 'accepted', 'dismissed', 'closed')),
        candidates jsonb NOT NULL DEFAULT '[]',
        looked_for text NOT NULL,
        mapping_id bigint NULL,
        decided_by text NULL,
        decided_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, crm)
      )`);
    await q.query(`CREATE INDEX mapping_suggestion_status ON mapping_suggestion (status, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mapping_suggestion`);
  }
}
