-- crm_sync_record_routed: crm_sync_record_actions for a routed delivery that also names the delivery's project
-- (p_project, when known) in the same UPDATE that marks it routed. Routing wrote the project with an UPDATE of its
-- own before: a second row version of webhook_inbox per delivery, and a second entry in its project index, on the
-- hot path of a burst's backlog (docs/performance.md, "Routing a burst's backlog").
--
-- Installed by migration 1763800070000 (see load-sql.ts for how to change it). Keep the signature and the result
-- type: running replicas hold named prepared statements on this function.
CREATE OR REPLACE FUNCTION crm_sync_record_routed(p_actions jsonb, p_routed_inbox bigint, p_project text)
RETURNS TABLE (idx int, created boolean, entry jsonb)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY SELECT r.idx, r.created, r.entry FROM crm_sync_record_actions(p_actions, NULL) r;
  UPDATE webhook_inbox SET status = 'routed', routed_at = now(), error = NULL, project_id = COALESCE(p_project, project_id)
   WHERE id = p_routed_inbox;
END
$$;
