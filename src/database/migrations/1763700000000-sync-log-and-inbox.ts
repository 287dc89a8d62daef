import type { MigrationInterface, QueryRunner } from 'typeorm';

// Stores a batch of deliveries in one transaction (one commit for many webhooks: the intake's throughput), each
// unless an equal one (same endpoint and body) arrived within the window. Advisory locks on the hashes, taken in
// hash order so concurrent batches cannot deadlock, make equal deliveries racing on two connections (or two
// replicas) queue up: exactly one is stored and the other sees it.
// Replaced by a set-based version in StoreDeliveriesSetBased1763700005000; kept for that migration's down().
export const STORE_DELIVERIES_ONE_BY_ONE = `
      CREATE FUNCTION crm_sync_store_deliveries(p_endpoints text[], p_events text[], p_bodies bytea[], p_hashes bytea[],
                                                p_statuses text[], p_window_seconds int)
      RETURNS TABLE (idx int, delivery_id bigint, duplicate boolean)
      LANGUAGE plpgsql AS $$
      DECLARE
        i int;
        existing bigint;
      BEGIN
        PERFORM pg_advisory_xact_lock(lock_key)
           FROM (SELECT DISTINCT ('x' || substr(encode(h, 'hex'), 1, 16))::bit(64)::bigint AS lock_key
                   FROM unnest(p_hashes) AS h ORDER BY 1) AS locks;
        FOR i IN 1 .. coalesce(array_length(p_hashes, 1), 0) LOOP
          SELECT w.id INTO existing FROM webhook_inbox w
           WHERE w.body_hash = p_hashes[i] AND w.received_at > clock_timestamp() - make_interval(secs => p_window_seconds)
           ORDER BY w.received_at DESC LIMIT 1;
          idx := i;
          IF existing IS NOT NULL THEN
            UPDATE webhook_inbox SET duplicates = duplicates + 1 WHERE id = existing;
            delivery_id := existing;
            duplicate := true;
          ELSE
            INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status, received_at)
            VALUES (p_endpoints[i], p_events[i], p_bodies[i], p_hashes[i], p_statuses[i], clock_timestamp())
            RETURNING id INTO delivery_id;
            duplicate := false;
          END IF;
          RETURN NEXT;
        END LOOP;
      END
      $$`;

export class SyncLogAndInbox1763700000000 implements MigrationInterface {
  name = 'SyncLogAndInbox1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sync_log (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('webhook', 'admin', 'schedule', 'reconcile')),
        crm text NULL CHECK (crm IN ('appointment', 'record')),
        project_id text NULL,
        target text NULL,
        status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'skipped')),
        attempts int NOT NULL DEFAULT 0,
        retry_base int NOT NULL DEFAULT 0,
        error text NULL,
        detail text NULL,
        payload jsonb NOT NULL DEFAULT '{}',
        dedupe_key text NULL UNIQUE,
        coalesce_key text NULL,
        inbox_id bigint NULL,
        parent_id bigint NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NULL,
        finished_at timestamptz NULL,
        duration_ms int NULL
      )`);
    await q.query(`CREATE INDEX sync_log_status_updated ON sync_log (status, updated_at)`);
    await q.query(`CREATE INDEX sync_log_project_created ON sync_log (project_id, created_at)`);
    await q.query(`CREATE INDEX sync_log_kind_created ON sync_log (kind, created_at)`);
    await q.query(`CREATE INDEX sync_log_inbox ON sync_log (inbox_id) WHERE inbox_id IS NOT NULL`);
    // At most one waiting action per coalesce key: a burst of events joins the one still queued.
    await q.query(`CREATE UNIQUE INDEX sync_log_coalesce_queued ON sync_log (coalesce_key) WHERE status = 'queued' AND coalesce_key IS NOT NULL`);

    await q.query(`
      CREATE TABLE webhook_inbox (
        id bigserial PRIMARY KEY,
        endpoint text NOT NULL,
        event text NULL,
        body bytea NOT NULL,
        body_hash bytea NOT NULL,
        status text NOT NULL CHECK (status IN ('received', 'routed', 'ignored', 'failed')),
        duplicates int NOT NULL DEFAULT 0,
        attempts int NOT NULL DEFAULT 0,
        error text NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        routed_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX webhook_inbox_hash_received ON webhook_inbox (body_hash, received_at)`);
    await q.query(`CREATE INDEX webhook_inbox_status_received ON webhook_inbox (status, received_at)`);

    await q.query(STORE_DELIVERIES_ONE_BY_ONE);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION crm_sync_store_deliveries`);
    await q.query(`DROP TABLE webhook_inbox`);
    await q.query(`DROP TABLE sync_log`);
  }
}
