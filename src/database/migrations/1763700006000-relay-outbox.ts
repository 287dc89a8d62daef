import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RECORD_ACTIONS_WITHOUT_NOT_BEFORE } from './1763700004000-record-actions-function.js';

// The definition this migration installed (it sets not_before from the action's delay_ms); the current one lives in
// sql/crm_sync_record_actions.sql. Kept for this migration's up() and 1763700007000's down().
export const RECORD_ACTIONS_WITH_NOT_BEFORE = `
CREATE OR REPLACE FUNCTION crm_sync_record_actions(p_actions jsonb, p_routed_inbox bigint)
RETURNS TABLE (idx int, created boolean, entry jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  i int;
  a jsonb;
  s sync_log;
  tries int;
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_actions) - 1 LOOP
    a := p_actions -> i;
    idx := i + 1;
    s := NULL;
    FOR tries IN 1 .. 3 LOOP
      INSERT INTO sync_log (kind, trigger, crm, project_id, target, status, payload, detail, error, dedupe_key,
                            coalesce_key, inbox_id, parent_id, finished_at, duration_ms, not_before)
      VALUES (a->>'kind', a->>'trigger', a->>'crm', a->>'project_id', a->>'target', a->>'status', a->'payload',
              a->>'detail', a->>'error', a->>'dedupe_key', a->>'coalesce_key', (a->>'inbox_id')::bigint,
              (a->>'parent_id')::bigint,
              CASE WHEN a->>'status' <> 'queued' THEN now() END, CASE WHEN a->>'status' <> 'queued' THEN 0 END,
              now() + make_interval(secs => COALESCE((a->>'delay_ms')::numeric, 0) / 1000))
      ON CONFLICT DO NOTHING
      RETURNING * INTO s;
      created := FOUND;
      EXIT WHEN created;
      IF a->>'dedupe_key' IS NOT NULL THEN
        SELECT * INTO s FROM sync_log WHERE dedupe_key = a->>'dedupe_key';
      END IF;
      IF s.id IS NULL AND a->>'coalesce_key' IS NOT NULL THEN
        SELECT * INTO s FROM sync_log WHERE coalesce_key = a->>'coalesce_key' AND status = 'queued';
      END IF;
      EXIT WHEN s.id IS NOT NULL;
    END LOOP;
    IF s.id IS NULL THEN
      RAISE EXCEPTION 'could not record %: keeps colliding', a->>'kind';
    END IF;
    entry := to_jsonb(s) || jsonb_build_object('id', s.id::text, 'inbox_id', s.inbox_id::text, 'parent_id', s.parent_id::text);
    RETURN NEXT;
  END LOOP;
  IF p_routed_inbox IS NOT NULL THEN
    UPDATE webhook_inbox SET status = 'routed', routed_at = now(), error = NULL WHERE id = p_routed_inbox;
  END IF;
END
$$;
`;

/**
 * The relay (transactional outbox): a stored delivery or action is put on its queue by the relay alone, which claims
 * the rows not enqueued yet. `enqueued_at` says a row's job was handed to the queue; `not_before` is when an action
 * may run (a burst of drawing events gathers behind it).
 */
export class RelayOutbox1763700006000 implements MigrationInterface {
  name = 'RelayOutbox1763700006000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_inbox ADD COLUMN enqueued_at timestamptz`);
    await q.query(`CREATE INDEX webhook_inbox_unqueued ON webhook_inbox (id) WHERE status = 'received' AND enqueued_at IS NULL`);
    await q.query(`ALTER TABLE sync_log ADD COLUMN enqueued_at timestamptz, ADD COLUMN not_before timestamptz`);
    // Work already running has a job; queued work is relayed again, and a job still live under its id makes that a no-op.
    await q.query(`UPDATE sync_log SET enqueued_at = updated_at WHERE status = 'running'`);
    await q.query(`CREATE INDEX sync_log_unqueued ON sync_log (id) WHERE status = 'queued' AND enqueued_at IS NULL`);
    await q.query(RECORD_ACTIONS_WITH_NOT_BEFORE);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(RECORD_ACTIONS_WITHOUT_NOT_BEFORE);
    await q.query(`DROP INDEX sync_log_unqueued`);
    await q.query(`ALTER TABLE sync_log DROP COLUMN enqueued_at, DROP COLUMN not_before`);
    await q.query(`DROP INDEX webhook_inbox_unqueued`);
    await q.query(`ALTER TABLE webhook_inbox DROP COLUMN enqueued_at`);
  }
}
