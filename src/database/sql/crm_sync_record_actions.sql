-- crm_sync_record_actions: records a list of sync actions in one round trip and, for a routed delivery
-- (p_routed_inbox), marks it routed in the same statement (so it is atomic without a transaction). Each action is
-- inserted unless its dedupe key exists, or a queued action holds its coalesce key: then the existing entry is
-- returned with created = false. When the queued action it collided with started running in between (so neither
-- is found), inserting is tried again. An action may carry delay_ms: it may not run before now() plus that
-- (not_before; 0 when absent). Entries come back as jsonb with the bigint ids as strings.
--
-- The current definition, installed by migration 1763700007000 (it records the admin's name, `actor`) (see load-sql.ts for how to change it). Keep the
-- signature and the result type: running replicas hold named prepared statements on this function.
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
                            coalesce_key, inbox_id, parent_id, finished_at, duration_ms, not_before, actor)
      VALUES (a->>'kind', a->>'trigger', a->>'crm', a->>'project_id', a->>'target', a->>'status', a->'payload',
              a->>'detail', a->>'error', a->>'dedupe_key', a->>'coalesce_key', (a->>'inbox_id')::bigint,
              (a->>'parent_id')::bigint,
              CASE WHEN a->>'status' <> 'queued' THEN now() END, CASE WHEN a->>'status' <> 'queued' THEN 0 END,
              now() + make_interval(secs => COALESCE((a->>'delay_ms')::numeric, 0) / 1000), a->>'actor')
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
