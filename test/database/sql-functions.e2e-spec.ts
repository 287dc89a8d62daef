import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { withAdvisoryLock } from '../../src/database/advisory-lock.js';
import { buildDataSourceOptions } from '../../src/database/data-source-options.js';
import { dropDatabase, ensureDatabase } from '../../src/database/ensure-database.js';
import { MIGRATIONS } from '../../src/database/migrations/index.js';
import { sqlFile } from '../../src/database/sql/load-sql.js';
import { uniqueDatabaseUrl } from '../support/harness.js';

/**
 * The plpgsql functions called through plain SQL on a database of this file's own, migrated the way the daemon
 * migrates (TypeORM, a transaction per migration); and the migrations run up, down and up again.
 */

/** The functions' signatures and result types: running replicas hold named prepared statements on them. */
const SIGNATURES = {
  crm_sync_store_deliveries: {
    args: 'p_endpoints text[], p_events text[], p_bodies bytea[], p_hashes bytea[], p_statuses text[], p_window_seconds integer',
    result: 'TABLE(idx integer, delivery_id bigint, duplicate boolean)',
  },
  crm_sync_record_actions: {
    args: 'p_actions jsonb, p_routed_inbox bigint',
    result: 'TABLE(idx integer, created boolean, entry jsonb)',
  },
};

const SQL_FILES = readdirSync(new URL('../../src/database/sql/', import.meta.url))
  .filter((f) => f.endsWith('.sql'))
  .map((f) => f.replace(/\.sql$/, ''))
  .sort();

async function migratedSource(databaseUrl: string): Promise<DataSource> {
  await ensureDatabase(databaseUrl);
  const source = new DataSource(buildDataSourceOptions(databaseUrl));
  await source.initialize();
  await source.runMigrations({ transaction: 'each' });
  return source;
}

/** Every function of the public schema: name, arguments, result and Postgres' own rendering of its definition. */
async function functions(db: pg.Client): Promise<Array<{ name: string; args: string; result: string; definition: string }>> {
  const { rows } = await db.query(
    `SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result,
            pg_get_functiondef(p.oid) AS definition
       FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1, 2`,
  );
  return rows;
}

async function tables(db: pg.Client): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
  return rows.map((r) => r.name);
}

describe('SQL functions', () => {
  const databaseUrl = uniqueDatabaseUrl();
  let source: DataSource;
  let db: pg.Client;

  beforeAll(async () => {
    source = await migratedSource(databaseUrl);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await source?.destroy();
    await dropDatabase(databaseUrl);
  });

  it('are installed from their .sql files, with the signatures and result types replicas have prepared', async () => {
    const installed = await functions(db);
    expect(installed.map((f) => f.name)).toEqual(SQL_FILES); // one file per function, no function without one
    for (const [name, signature] of Object.entries(SIGNATURES)) expect(installed.find((f) => f.name === name)).toMatchObject(signature);
    // Running each file again changes nothing: the database holds exactly the files' definitions.
    await db.query('BEGIN');
    try {
      for (const name of SQL_FILES) await db.query(sqlFile(name));
      expect(await functions(db)).toEqual(installed);
    } finally {
      await db.query('ROLLBACK');
    }
  });

  describe('crm_sync_store_deliveries', () => {
    let seq = 0;
    interface Delivery {
      endpoint: string;
      event: string | null;
      body: Buffer;
      status: string;
    }
    /** A body no other test uses. */
    const uniqueBody = () => Buffer.from(JSON.stringify({ event: 'project.created', data: { id: String(seq++), at: Date.now() } }));
    const delivery = (body: Buffer, endpoint = 'events', status = 'received'): Delivery => ({ endpoint, event: 'project.created', body, status });
    /** The daemon's dedupe hash covers endpoint and body; the function compares hashes only. */
    const hashOf = (d: Delivery) => createHash('sha256').update(`${d.endpoint}\n`).update(d.body).digest();
    const storeOn = async (client: pg.Client, batch: Delivery[], windowSeconds = 3900) =>
      (
        await client.query<{ idx: number; id: string; duplicate: boolean }>(
          'SELECT idx, delivery_id::text AS id, duplicate FROM crm_sync_store_deliveries($1, $2, $3, $4, $5, $6)',
          [batch.map((d) => d.endpoint), batch.map((d) => d.event), batch.map((d) => d.body), batch.map(hashOf), batch.map((d) => d.status), windowSeconds],
        )
      ).rows;
    const store = (batch: Delivery[], windowSeconds?: number) => storeOn(db, batch, windowSeconds);
    const row = async (id: string) =>
      (await db.query('SELECT id::text, endpoint, event, body, body_hash, status, duplicates FROM webhook_inbox WHERE id = $1', [id])).rows[0];
    const rowsOf = async (body: Buffer) =>
      (await db.query('SELECT id::text, endpoint, duplicates FROM webhook_inbox WHERE body = $1 ORDER BY webhook_inbox.id', [body])).rows;

    it('stores a delivery and answers its id', async () => {
      const d = delivery(uniqueBody(), 'events', 'ignored');
      const [answer] = await store([d]);
      expect(answer).toEqual({ idx: 1, id: expect.stringMatching(/^\d+$/), duplicate: false });
      expect(await row(answer.id)).toEqual({
        id: answer.id,
        endpoint: 'events',
        event: 'project.created',
        body: d.body,
        body_hash: hashOf(d),
        status: 'ignored',
        duplicates: 0,
      });
    });

    it('answers an equal delivery on the same endpoint within the window as a duplicate of the first', async () => {
      const d = delivery(uniqueBody());
      const [first] = await store([d]);
      const [again] = await store([d]);
      const [third] = await store([d]);
      expect(again).toEqual({ idx: 1, id: first.id, duplicate: true });
      expect(third).toEqual({ idx: 1, id: first.id, duplicate: true });
      expect(await rowsOf(d.body)).toEqual([{ id: first.id, endpoint: 'events', duplicates: 2 }]);
    });

    it('stores the same body on another endpoint as a delivery of its own', async () => {
      const body = uniqueBody();
      const [onEvents] = await store([delivery(body, 'events')]);
      const [onPrompt] = await store([delivery(body, 'appointment-prompt')]);
      expect(onPrompt.duplicate).toBe(false);
      expect(onPrompt.id).not.toBe(onEvents.id);
      expect(await rowsOf(body)).toHaveLength(2);
    });

    it('stores equal deliveries within one batch once, at the first, and answers in batch order', async () => {
      const [a, b, c] = [uniqueBody(), uniqueBody(), uniqueBody()];
      const [stored] = await store([delivery(c)]);
      const answers = await store([delivery(a), delivery(b), delivery(a), delivery(c), delivery(a), delivery(c)]);
      expect(answers.map((r) => r.idx)).toEqual([1, 2, 3, 4, 5, 6]);
      const [ra, rb] = [answers[0], answers[1]];
      expect(ra.duplicate).toBe(false);
      expect(rb.duplicate).toBe(false);
      expect(rb.id).not.toBe(ra.id);
      expect(answers.slice(2)).toEqual([
        { idx: 3, id: ra.id, duplicate: true },
        { idx: 4, id: stored.id, duplicate: true },
        { idx: 5, id: ra.id, duplicate: true },
        { idx: 6, id: stored.id, duplicate: true },
      ]);
      expect(await rowsOf(a)).toEqual([{ id: ra.id, endpoint: 'events', duplicates: 2 }]);
      expect(await rowsOf(b)).toEqual([{ id: rb.id, endpoint: 'events', duplicates: 0 }]);
      expect(await rowsOf(c)).toEqual([{ id: stored.id, endpoint: 'events', duplicates: 2 }]);
    });

    it('stores an equal delivery after the window as a new one, and counts later ones against the newest', async () => {
      const d = delivery(uniqueBody());
      const [old] = await store([d]);
      await db.query(`UPDATE webhook_inbox SET received_at = now() - interval '61 seconds' WHERE id = $1`, [old.id]);
      const [fresh] = await store([d], 60);
      expect(fresh.duplicate).toBe(false);
      expect(fresh.id).not.toBe(old.id);
      const [again] = await store([d], 3900); // both are within this window: the newest one is the original
      expect(again).toEqual({ idx: 1, id: fresh.id, duplicate: true });
      expect(await rowsOf(d.body)).toEqual([
        { id: old.id, endpoint: 'events', duplicates: 0 },
        { id: fresh.id, endpoint: 'events', duplicates: 1 },
      ]);
    });

    it('makes an equal delivery on another connection wait for the first to commit, then answers it as a duplicate', async () => {
      const d = delivery(uniqueBody());
      const other = new pg.Client({ connectionString: databaseUrl });
      await other.connect();
      try {
        await db.query('BEGIN');
        const [first] = await store([d]);
        const second = storeOn(other, [delivery(uniqueBody()), d]);
        const waited = await Promise.race([second.then(() => false), new Promise((r) => setTimeout(() => r(true), 300))]);
        await db.query('COMMIT');
        expect(waited).toBe(true);
        const answers = await second;
        expect(answers[1]).toEqual({ idx: 2, id: first.id, duplicate: true });
        expect(answers[0].duplicate).toBe(false);
        expect(await rowsOf(d.body)).toHaveLength(1);
      } finally {
        await db.query('ROLLBACK').catch(() => undefined);
        await other.end();
      }
    });
  });

  describe('crm_sync_record_actions', () => {
    let seq = 0;
    type Action = Record<string, unknown>;
    interface Recorded {
      idx: number;
      created: boolean;
      entry: Record<string, unknown>;
    }
    const action = (overrides: Action = {}): Action => ({
      kind: 'add_note',
      trigger: 'webhook',
      crm: 'record',
      project_id: `p${seq++}`,
      target: 'Deals/1',
      status: 'queued',
      payload: { n: seq },
      ...overrides,
    });
    const record = async (actions: Action[], routedInbox: string | null = null) =>
      (
        await db.query<Recorded>('SELECT idx, created, entry FROM crm_sync_record_actions($1::jsonb, $2::bigint) ORDER BY idx', [
          JSON.stringify(actions),
          routedInbox,
        ])
      ).rows;
    const storedDelivery = async () => {
      const body = Buffer.from(`{"n":${seq++},"at":${Date.now()}}`);
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status) VALUES ('events', 'project.created', $1, $2, 'received') RETURNING id::text`,
        [body, createHash('sha256').update(body).digest()],
      );
      return rows[0].id;
    };
    const inboxRow = async (id: string) =>
      (await db.query('SELECT status, routed_at IS NOT NULL AS routed, error FROM webhook_inbox WHERE id = $1', [id])).rows[0];
    const count = async (where: string, params: unknown[]) =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_log WHERE ${where}`, params)).rows[0].n;

    it('records actions and answers each entry with its ids as strings', async () => {
      const inboxId = await storedDelivery();
      const queued = action({ inbox_id: inboxId, payload: { big: '36029621652695999' } });
      const skipped = action({ kind: 'route_delivery', status: 'skipped', detail: 'no module acts on it', crm: null, target: null });
      const [a, b] = await record([queued, skipped]);
      expect(a).toMatchObject({ idx: 1, created: true });
      expect(a.entry).toMatchObject({
        id: expect.stringMatching(/^\d+$/),
        kind: 'add_note',
        trigger: 'webhook',
        crm: 'record',
        project_id: queued.project_id,
        target: 'Deals/1',
        status: 'queued',
        payload: { big: '36029621652695999' },
        inbox_id: inboxId,
        parent_id: null,
        attempts: 0,
        finished_at: null,
        duration_ms: null,
      });
      expect(b).toMatchObject({ idx: 2, created: true });
      expect(b.entry).toMatchObject({ kind: 'route_delivery', status: 'skipped', detail: 'no module acts on it', inbox_id: null, duration_ms: 0 });
      expect(b.entry.finished_at).toEqual(expect.any(String));
      const parent = await record([action({ parent_id: a.entry.id })]);
      expect(parent[0].entry.parent_id).toBe(a.entry.id);
      expect(await count('id IN ($1, $2)', [a.entry.id, b.entry.id])).toBe(2);
    });

    it('answers an action whose dedupe key was used before with the existing entry, created false', async () => {
      const dedupeKey = `approval:${seq++}`;
      const [first] = await record([action({ dedupe_key: dedupeKey })]);
      await db.query(`UPDATE sync_log SET status = 'succeeded' WHERE id = $1`, [first.entry.id]);
      const [again, other] = await record([action({ dedupe_key: dedupeKey, payload: { other: true } }), action()]);
      expect(first.created).toBe(true);
      expect(again).toMatchObject({ idx: 1, created: false, entry: { id: first.entry.id, status: 'succeeded', payload: first.entry.payload } });
      expect(other.created).toBe(true);
      expect(await count('dedupe_key = $1', [dedupeKey])).toBe(1);
    });

    it('joins an action to the queued one holding its coalesce key, and records a new one once that one runs', async () => {
      const coalesceKey = `drawings:${seq++}`;
      const [first] = await record([action({ kind: 'push_drawings', coalesce_key: coalesceKey })]);
      const [joined, joinedAgain] = await record([
        action({ kind: 'push_drawings', coalesce_key: coalesceKey }),
        action({ kind: 'push_drawings', coalesce_key: coalesceKey }),
      ]);
      expect(joined).toMatchObject({ created: false, entry: { id: first.entry.id, status: 'queued' } });
      expect(joinedAgain).toMatchObject({ created: false, entry: { id: first.entry.id } });
      await db.query(`UPDATE sync_log SET status = 'running' WHERE id = $1`, [first.entry.id]);
      const [next] = await record([action({ kind: 'push_drawings', coalesce_key: coalesceKey })]);
      expect(next.created).toBe(true);
      expect(next.entry.id).not.toBe(first.entry.id);
      expect(await count('coalesce_key = $1', [coalesceKey])).toBe(2);
    });

    it('marks the routed delivery routed in the same statement, with or without actions', async () => {
      const [withActions, withoutActions] = [await storedDelivery(), await storedDelivery()];
      await db.query(`UPDATE webhook_inbox SET error = 'earlier failure' WHERE id = $1`, [withActions]);
      const recorded = await record([action({ inbox_id: withActions })], withActions);
      expect(recorded).toHaveLength(1);
      expect(await inboxRow(withActions)).toEqual({ status: 'routed', routed: true, error: null });
      expect(await record([], withoutActions)).toEqual([]);
      expect(await inboxRow(withoutActions)).toEqual({ status: 'routed', routed: true, error: null });
    });

    it('sets when an action may run: now, or delay_ms later', async () => {
      const [now, later] = await record([action(), action({ delay_ms: 5_000 })]);
      const { rows } = await db.query<{ now: number; later: number }>(
        `SELECT extract(epoch FROM $1::timestamptz - now())::float AS now, extract(epoch FROM $2::timestamptz - now())::float AS later`,
        [now.entry.not_before, later.entry.not_before],
      );
      expect(rows[0].now).toBeCloseTo(0, 1);
      expect(rows[0].later).toBeCloseTo(5, 1);
    });

    it('leaves the delivery unrouted and records nothing when one action cannot be recorded', async () => {
      const inboxId = await storedDelivery();
      const good = action({ inbox_id: inboxId });
      await expect(record([good, action({ trigger: 'nonsense' })], inboxId)).rejects.toThrow(/sync_log_trigger_check|check constraint/);
      expect(await inboxRow(inboxId)).toEqual({ status: 'received', routed: false, error: null });
      expect(await count('project_id = $1', [good.project_id])).toBe(0);
    });
  });
});

describe('migrations', () => {
  const databaseUrl = uniqueDatabaseUrl();
  let db: pg.Client | undefined;
  afterAll(async () => {
    await db?.end();
    await dropDatabase(databaseUrl);
  });

  it('run up, down to an empty schema and up again', async () => {
    const source = await migratedSource(databaseUrl);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const [upTables, upFunctions] = [await tables(db), await functions(db)];
      expect(upFunctions.map((f) => f.name)).toEqual(SQL_FILES);
      expect(upTables).toEqual(expect.arrayContaining(['migrations', 'sync_log', 'webhook_inbox', 'mapping', 'appointment_drawing_push']));

      // What undoing a migration that replaced a function must give back: the version before it.
      const restored: Record<string, { fn: string; is: RegExp; isNot: RegExp }> = {
        StoreDeliveriesSetBased1763700005000: {
          fn: 'crm_sync_store_deliveries',
          is: /FOR i IN 1 \.\. coalesce\(array_length\(p_hashes, 1\), 0\) LOOP/,
          isNot: /RETURN QUERY/,
        },
        RelayOutbox1763700006000: { fn: 'crm_sync_record_actions', is: /finished_at, duration_ms\)/, isNot: /not_before/ },
      };
      const checked: string[] = [];
      for (let left = MIGRATIONS.length; left > 0; left--) {
        const undone = new MIGRATIONS[left - 1]().name as string;
        await source.undoLastMigration({ transaction: 'each' });
        const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM migrations');
        expect(rows[0].n).toBe(left - 1);
        if (restored[undone]) {
          const definition = (await functions(db)).find((f) => f.name === restored[undone].fn)?.definition;
          expect(definition).toMatch(restored[undone].is);
          expect(definition).not.toMatch(restored[undone].isNot);
          checked.push(undone);
        }
      }
      expect(checked.sort()).toEqual(Object.keys(restored).sort());
      expect(await tables(db)).toEqual(['migrations']);
      expect(await functions(db)).toEqual([]);

      await source.runMigrations({ transaction: 'each' });
      expect(await tables(db)).toEqual(upTables);
      expect(await functions(db)).toEqual(upFunctions);
    } finally {
      await source.destroy();
    }
  });
});

describe('withAdvisoryLock', () => {
  const databaseUrl = uniqueDatabaseUrl();
  let db: pg.Client;
  beforeAll(async () => {
    await ensureDatabase(databaseUrl);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await dropDatabase(databaseUrl);
  });

  /** Whether another session could take the lock right now (taken and given back at once). */
  const free = async (keySql: string, param: string | number) => {
    const { rows } = await db.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${keySql}) AS locked`, [param]);
    if (rows[0].locked) await db.query(`SELECT pg_advisory_unlock(${keySql})`, [param]);
    return rows[0].locked;
  };

  it('holds the lock the daemon has always used for the key while the work runs, and releases it after', async () => {
    // The same lock as before the helper (replicas of both versions can run side by side during a deploy).
    const seen: boolean[] = [];
    await withAdvisoryLock(databaseUrl, 8_127_303_559, async () => void seen.push(await free('$1', 8_127_303_559)));
    await withAdvisoryLock(
      databaseUrl,
      'appointment-files:42:proposal',
      async () => void seen.push(await free('hashtextextended($1, 0)', 'appointment-files:42:proposal')),
    );
    expect(seen).toEqual([false, false]);
    expect(await free('$1', 8_127_303_559)).toBe(true);
    expect(await free('hashtextextended($1, 0)', 'appointment-files:42:proposal')).toBe(true);
  });

  it('waits for the holder by default, and answers ifTaken without running the work when asked not to wait', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = withAdvisoryLock(databaseUrl, 'k', async () => {
      order.push('first start');
      await held;
      order.push('first end');
      return 1;
    });
    await new Promise((r) => setTimeout(r, 200));
    const second = withAdvisoryLock(databaseUrl, 'k', async () => {
      order.push('second');
      return 2;
    });
    const skipped = await withAdvisoryLock(
      databaseUrl,
      'k',
      async () => {
        order.push('not waited');
        return 3;
      },
      { ifTaken: () => -1 },
    );
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect([await first, await second, skipped]).toEqual([1, 2, -1]);
    expect(order).toEqual(['first start', 'first end', 'second']);
  });

  it('releases the lock and closes its connection when the work fails', async () => {
    const connections = async () =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()')).rows[0].n;
    const before = await connections();
    await expect(withAdvisoryLock(databaseUrl, 7, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withAdvisoryLock(databaseUrl, 7, async () => 'ran', { ifTaken: () => 'taken' })).toBe('ran');
    for (let waited = 0; (await connections()) > before && waited < 2_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(await connections()).toBe(before);
  });
});
