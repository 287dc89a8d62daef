-- crm_sync_store_deliveries: stores a batch of webhook deliveries in one statement (one commit for many webhooks:
-- the intake's throughput), each unless an equal one (same endpoint and body, i.e. the same hash) arrived within
-- p_window_seconds; that one's id comes back with duplicate = true and its `duplicates` count goes up. Equal
-- deliveries within one batch are stored once, at the first, and counted as duplicates of it. Advisory locks on the
-- hashes, taken in hash order so concurrent batches cannot deadlock, make equal deliveries racing on two connections
-- (or two replicas) queue up: exactly one is stored and the other sees it.
--
-- The current definition, installed by migration 1763700005000 (see load-sql.ts for how to change it). Keep the
-- signature and the result type: running replicas hold named prepared statements on this function.
CREATE OR REPLACE FUNCTION crm_sync_store_deliveries(p_endpoints text[], p_events text[], p_bodies bytea[], p_hashes bytea[],
                                                     p_statuses text[], p_window_seconds int)
RETURNS TABLE (idx int, delivery_id bigint, duplicate boolean)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(lock_key)
     FROM (SELECT DISTINCT ('x' || substr(encode(h, 'hex'), 1, 16))::bit(64)::bigint AS lock_key
             FROM unnest(p_hashes) AS h ORDER BY 1) AS locks;
  -- A statement of its own, so its snapshot sees what an equal delivery committed while this waited for the lock.
  RETURN QUERY
  WITH batch AS (
    SELECT b.i::int AS i, b.endpoint, b.event, b.body, b.hash, b.status,
           min(b.i) OVER same_body AS first_i, count(*) OVER same_body AS copies
      FROM unnest(p_endpoints, p_events, p_bodies, p_hashes, p_statuses) WITH ORDINALITY AS b(endpoint, event, body, hash, status, i)
    WINDOW same_body AS (PARTITION BY b.hash)
  ), earlier AS (
    SELECT batch.hash, stored.id, batch.copies
      FROM batch
      CROSS JOIN LATERAL (SELECT w.id FROM webhook_inbox w
                           WHERE w.body_hash = batch.hash
                             AND w.received_at > clock_timestamp() - make_interval(secs => p_window_seconds)
                           ORDER BY w.received_at DESC LIMIT 1) AS stored
     WHERE batch.i = batch.first_i
  ), counted AS (
    UPDATE webhook_inbox w SET duplicates = w.duplicates + earlier.copies FROM earlier WHERE w.id = earlier.id
  ), inserted AS (
    INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status, duplicates, received_at)
    SELECT batch.endpoint, batch.event, batch.body, batch.hash, batch.status, batch.copies - 1, clock_timestamp()
      FROM batch
     WHERE batch.i = batch.first_i AND NOT EXISTS (SELECT 1 FROM earlier WHERE earlier.hash = batch.hash)
     ORDER BY batch.i
    RETURNING id, body_hash
  )
  SELECT batch.i, coalesce(earlier.id, inserted.id), earlier.id IS NOT NULL OR batch.i <> batch.first_i
    FROM batch
    LEFT JOIN earlier ON earlier.hash = batch.hash
    LEFT JOIN inserted ON inserted.body_hash = batch.hash
   ORDER BY batch.i;
END
$$;
