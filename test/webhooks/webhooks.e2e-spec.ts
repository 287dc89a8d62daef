import { Queue } from 'bullmq';
import pg from 'pg';
import { QUEUES } from '../../src/queues/queues.js';
import { RelayRecoveryService } from '../../src/relay/relay-recovery.service.js';
import { redisConnection } from '../../src/queues/redis-connection.js';
import { deliveryHash } from '../../src/webhooks/inbox.service.js';
import { toJson } from '../../sim/common/sim-server.js';
import { signWebhook, WebhookSender, events, appointmentPrompt, recordPrompt } from '../../sim/service/index.js';
import { dedupeWindowPassed, EVENTS_SECRET, RECORD_PROMPT_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';
import { inboxDeliveries, syncLogEntries } from '../support/tables.js';

const sender = new WebhookSender({ timeScale: 1 });

describe('webhook intake', () => {
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 2, env: { WEBHOOK_SECRETS_EVENTS: `retired-secret,${EVENTS_SECRET}`, WEBHOOK_DEDUPE_WINDOW_SECONDS: '2' } });
  });
  afterAll(() => h.close());

  /** A fresh project event whose body differs from every other test's. */
  const uniqueEvent = () => JSON.stringify(events.projectCreated({ id: `3602962165269501${seq}`, name: `Project ${seq++}`, tags: [] } as never));
  const post = (body: string, header: string | null, path = '/webhooks/events', contentType = 'application/json') =>
    fetch(`${h.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...(header === null ? {} : { 'service-signature': header }) },
      body,
    });
  /** A delivery to the events webhook of another daemon than `h`, signed with the events secret. */
  const postSignedEvent = (baseUrl: string, body: string) =>
    fetch(`${baseUrl}/webhooks/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-signature': signWebhook(EVENTS_SECRET, body) },
      body,
    });
  const routedCount = async (daemon: Harness) =>
    ((await daemon.database.query(`SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'routed'`)) as Array<{ n: number }>)[0].n;
  /** Deliveries stored and not handed to the queue: what a replica holds back during a burst. */
  const heldCount = async (daemon: Harness) =>
    ((await daemon.database.query(`SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'received' AND enqueued_at IS NULL`)) as Array<{ n: number }>)[0]
      .n;
  /** The replica's own word that it is in a burst (its gauge at /metrics). */
  const relayBursting = async (daemon: Harness) => Number(/^crm_sync_relay_bursting (\d+)$/m.exec(await (await fetch(`${daemon.url}/metrics`)).text())?.[1]);
  const entriesOf = async (inboxId: string) => syncLogEntries(h, { inboxId });
  const inboxRows = async (body: string) => inboxDeliveries(h, { body });

  it('accepts a valid delivery, stores it before answering and routes it once', async () => {
    const body = uniqueEvent();
    const res = await post(body, signWebhook(EVENTS_SECRET, body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'accepted' });
    const [row] = await inboxRows(body);
    expect(row).toBeDefined();
    expect(row.event).toBe('project.created');
    const entries = await waitFor(async () => ((await entriesOf(row.id)).length > 0 ? entriesOf(row.id) : null));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ kind: 'route_delivery', status: 'skipped', trigger: 'webhook', projectId: JSON.parse(body).data.id });
  });

  it('keeps ids beyond 2^53 exact when they arrive as bare JSON numbers', async () => {
    const body = `{"event":"project.created","data":{"id":36029621652695999,"name":"Big id","tags":[]}}`;
    expect((await post(body, signWebhook(EVENTS_SECRET, body))).status).toBe(200);
    const [row] = await inboxRows(body);
    const [entry] = await waitFor(() => entriesOf(row.id).then((e) => (e.length ? e : null)));
    expect(entry.projectId).toBe('36029621652695999');
  });

  it('refuses a wrong secret, a tampered body and a missing header with 401', async () => {
    const body = uniqueEvent();
    const wrong = await post(body, signWebhook('not-the-secret', body));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'signature does not match' });
    expect((await post(body.replace('Project', 'Projekt'), signWebhook(EVENTS_SECRET, body))).status).toBe(401);
    const missing = await post(body, null);
    expect(missing.status).toBe(401);
    expect(JSON.stringify(await missing.json())).not.toContain(EVENTS_SECRET);
    expect(await inboxRows(body)).toHaveLength(0);
  });

  it('refuses stale and future timestamps, accepts extra header elements and a rotated secret', async () => {
    const body = uniqueEvent();
    const now = Math.floor(Date.now() / 1000);
    expect((await post(body, signWebhook(EVENTS_SECRET, body, now - 400))).status).toBe(401);
    expect((await post(body, signWebhook(EVENTS_SECRET, body, now + 400))).status).toBe(401);
    const extra = await sender.deliverOnce(`${h.url}/webhooks/events`, body, { secret: 'retired-secret', extraElements: ['v0=ignored', 'x=1'] });
    expect(extra.status).toBe(200);
  });

  it('answers a re-delivery within the window "duplicate" and processes it once; after the window it is new', async () => {
    const body = uniqueEvent();
    expect(await (await post(body, signWebhook(EVENTS_SECRET, body, Math.floor(Date.now() / 1000) - 1))).json()).toEqual({ status: 'accepted' });
    const again = await post(body, signWebhook(EVENTS_SECRET, body));
    expect(await again.json()).toEqual({ status: 'duplicate' });
    const [row] = await inboxRows(body);
    await waitFor(() => entriesOf(row.id).then((e) => e.length === 1));
    expect((await inboxDeliveries(h, { id: row.id }))[0].duplicates).toBe(1);

    await dedupeWindowPassed(h); // the test's window is 2 s
    expect(await (await post(body, signWebhook(EVENTS_SECRET, body))).json()).toEqual({ status: 'accepted' });
    const rows = await inboxRows(body);
    expect(rows).toHaveLength(2);
    await waitFor(() => entriesOf(rows[1].id).then((e) => e.length === 1));
  });

  it('stores one of many equal deliveries arriving at the same instant', async () => {
    const body = uniqueEvent();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post(body, signWebhook(EVENTS_SECRET, body)).then((r) => r.json() as Promise<{ status: string }>)),
    );
    expect(answers.filter((a) => a.status === 'accepted')).toHaveLength(1);
    expect(answers.filter((a) => a.status === 'duplicate')).toHaveLength(7);
    const rows = await inboxRows(body);
    expect(rows).toHaveLength(1);
    expect(rows[0].duplicates).toBe(7);
  });

  it('stores an equal delivery once when two replicas store it at the same instant', async () => {
    // Replica A has stored the body but not committed; replica B's write must wait for it, then see it.
    const body = Buffer.from(uniqueEvent());
    const store = (client: pg.Client) =>
      client
        .query('SELECT delivery_id::text AS id, duplicate FROM crm_sync_store_deliveries($1, $2, $3, $4, $5, $6)', [
          ['events'],
          ['project.created'],
          [body],
          [deliveryHash('events', body)],
          ['ignored'],
          60,
        ])
        .then((r) => r.rows[0] as { id: string; duplicate: boolean });
    const [a, b] = [new pg.Client({ connectionString: h.databaseUrl }), new pg.Client({ connectionString: h.databaseUrl })];
    await Promise.all([a.connect(), b.connect()]);
    try {
      await a.query('BEGIN');
      const first = await store(a);
      const second = store(b);
      const waiting = await Promise.race([second.then(() => false), new Promise((r) => setTimeout(() => r(true), 300))]);
      await a.query('COMMIT');
      expect(waiting).toBe(true);
      expect(first.duplicate).toBe(false);
      expect(await second).toEqual({ id: first.id, duplicate: true });
      expect(await inboxRows(body.toString())).toHaveLength(1);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('answers 400 for bodies that are not JSON, not an object or not of the documented shape', async () => {
    for (const body of ['not json', '[1,2,3]', '{"event":"drawing.created","data":{"id":"1","name":"x","pdf_url":"u","png_url":"u","tags":[]}}']) {
      const res = await post(body, signWebhook(EVENTS_SECRET, body));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toEqual(expect.any(String));
    }
    const missing = '{"event":"drawing.created","data":{"id":"1","name":"x","pdf_url":"u","png_url":"u","tags":[]}}';
    const res = await post(missing, signWebhook(EVENTS_SECRET, missing));
    expect(((await res.json()) as { error: string }).error).toContain('data.project_id');
  });

  it('stores an unknown event and answers "ignored"', async () => {
    const body = '{"event":"project.deleted","data":{"id":"5"}}';
    const res = await post(body, signWebhook(EVENTS_SECRET, body));
    expect(await res.json()).toEqual({ status: 'ignored' });
    const [row] = await inboxRows(body);
    expect(row.status).toBe('ignored');
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const body = `{"event":"project.created","data":{"id":"1","name":"${'x'.repeat(1024 * 1024)}","tags":[]}}`.slice(0, 1024 * 1024 + 1);
    const res = await post(body, signWebhook(EVENTS_SECRET, body));
    expect(res.status).toBe(413);
  });

  it('accepts the record prompt bare, wrapped, and with the short field names', async () => {
    const base = { drawing_id: '36029621652695100', record_crm_module: 'Deals', record_crm_record_id: '4150868000005277036', yes_no: false };
    const variants = [
      recordPrompt(base),
      recordPrompt({ ...base, drawing_id: '36029621652695101' }, { wrapped: true }),
      recordPrompt({ ...base, drawing_id: '36029621652695102' }, { shortNames: true }),
    ];
    for (const payload of variants) {
      const body = JSON.stringify(payload);
      const res = await post(body, signWebhook(RECORD_PROMPT_SECRET, body), '/webhooks/record-crm/export-prompt');
      expect(await res.json()).toEqual({ status: 'accepted' });
    }
  });

  it('retries routing a delivery whose project cannot be looked up yet (the service failing), then routes it once', async () => {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    // More failures than the client's own retries: the routing job itself must come back.
    h.service.injectFault({ method: 'GET', path: `/v1/drawings/${drawing.id}`, times: 4, status: 503 });
    const body = toJson(
      events.paymentReceived('36029621652695123', drawing.id, {
        paid_amount: 10,
        pay_channel: 'mark_as_paid',
        paid_date: '2026-11-20',
        payment_method: 'Cash',
        status: 'succeeded',
      }),
    );
    expect(await (await post(body, signWebhook(EVENTS_SECRET, body))).json()).toEqual({ status: 'accepted' });
    const [row] = await inboxRows(body);
    const entries = await waitFor(() => entriesOf(row.id).then((e) => (e.length ? e : null)), 15_000, 'the delivery to be routed');
    expect(entries).toHaveLength(1);
    expect(entries[0].projectId).toBe(project.id);
    const stored = (await inboxDeliveries(h, { id: row.id }))[0];
    expect(stored).toMatchObject({ status: 'routed', attempts: 1 });
    expect(stored.error).toBeNull();
  });

  it('answers 404 on a prompt webhook whose secret is not configured', async () => {
    const other = await startHarness({ redisDb: 3, env: { WEBHOOK_SECRETS_APPOINTMENT_PROMPT: '' } });
    try {
      const body = JSON.stringify(appointmentPrompt({ project_id: '1', drawing_id: '2', appointment_id: '3', yes_no: true }));
      const res = await fetch(`${other.url}/webhooks/appointment-crm/export-prompt`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-signature': signWebhook('x', body) },
        body,
      });
      expect(res.status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('answers 503 when the delivery cannot be stored, so the service retries', async () => {
    const down = await startHarness({ redisDb: 3, env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/crm_sync' }, waitForDatabase: false });
    try {
      const body = uniqueEvent();
      const res = await postSignedEvent(down.url, body);
      expect(res.status).toBe(503);
      const ready = await fetch(`${down.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { error: object }).error).toHaveProperty('postgres');
    } finally {
      await down.close();
    }
  });

  it('relays deliveries stored without a job (a replica died before relaying them) and recovers jobs lost from Redis', async () => {
    const insert = (body: string, enqueuedAt: string) =>
      h.database.query(
        `INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status, received_at, enqueued_at)
         VALUES ('events', 'project.created', $1, sha256($1), 'received', now() - interval '10 minutes', ${enqueuedAt})`,
        [Buffer.from(body)],
      );
    const unrelayed = Array.from({ length: 3 }, () => uniqueEvent());
    const lost = Array.from({ length: 5 }, () => uniqueEvent());
    for (const body of unrelayed) await insert(body, 'NULL');
    for (const body of lost) await insert(body, "now() - interval '10 minutes'");
    // The relay's timer claims the rows nobody relayed; the lost jobs wait for the recovery, which pages through them.
    await waitFor(async () => (await Promise.all(unrelayed.map(inboxRows))).every((rows) => rows[0]?.status === 'routed'), 10_000, 'the relay');
    expect((await Promise.all(lost.map(inboxRows))).map((rows) => rows[0].status)).toEqual(lost.map(() => 'received'));
    expect((await h.app.get(RelayRecoveryService).recover(60_000, 2)).deliveries).toBeGreaterThanOrEqual(lost.length);
    await waitFor(
      async () => (await Promise.all(lost.map(inboxRows))).every((rows) => rows[0]?.status === 'routed'),
      10_000,
      'the recovered deliveries to be routed',
    );
  });

  it('relays only a trickle of deliveries during a burst, and the rest when it ends', async () => {
    // A burst is 5 deliveries within a 500 ms sample (10/s); during one, 1 delivery a sample is relayed (2/s).
    const paced = await startHarness({
      redisDb: 3,
      tune: (config) => (config.relay = { ...config.relay, burstPerSecond: 10, burstFeedPerSecond: 2, sampleMs: 500 }),
    });
    const bursting = async () => Number(/^crm_sync_relay_bursting (\d+)$/m.exec(await (await fetch(`${paced.url}/metrics`)).text())?.[1]);
    const waiting = async () =>
      (
        (await paced.database.query(`SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'received' AND enqueued_at IS NULL`)) as Array<{ n: number }>
      )[0].n;
    try {
      const bodies = Array.from({ length: 60 }, () => uniqueEvent());
      const answers: number[] = [];
      let sending = true;
      const sent = (async () => {
        // About 25 a second for over two seconds: a burst of several samples.
        for (const body of bodies) {
          answers.push((await postSignedEvent(paced.url, body)).status);
          await new Promise((r) => setTimeout(r, 30));
        }
        sending = false;
      })();
      const seen: Array<{ bursting: number; waiting: number; routed: number }> = [];
      while (sending) {
        seen.push({ bursting: await bursting(), waiting: await waiting(), routed: await routedCount(paced) });
        await new Promise((r) => setTimeout(r, 100));
      }
      await sent;
      expect(answers).toEqual(bodies.map(() => 200));
      const held = seen.filter((s) => s.bursting === 1 && s.waiting > 0);
      expect(held.length).toBeGreaterThan(0);
      // Routing went on during the burst, a trickle at a time.
      const trickled = seen.some((s, i) => i > 0 && s.bursting === 1 && seen[i - 1].bursting === 1 && s.routed > seen[i - 1].routed);
      expect(trickled).toBe(true);
      expect(Math.max(...seen.map((s) => s.waiting))).toBeGreaterThan(10);
      const routed = await waitFor(
        async () => {
          const n = await routedCount(paced);
          return n === bodies.length ? n : null;
        },
        20_000,
        'every delivery routed',
      );
      expect(routed).toBe(60);
      expect(await waiting()).toBe(0);
      expect(await bursting()).toBe(0);
    } finally {
      await paced.close();
    }
  });

  it('leaves what a stopped replica did not relay in Postgres, where another replica relays it once', async () => {
    // A sample longer than the test: the burst is noticed at its tenth delivery and this replica never relays the rest.
    const stopped = await startHarness({
      redisDb: 3,
      tune: (config) => (config.relay = { ...config.relay, burstPerSecond: 10 / 60, burstFeedPerSecond: 1 / 60, sampleMs: 60_000 }),
    });
    let other: Harness | undefined;
    const queue = new Queue(QUEUES.webhooks, { connection: redisConnection(stopped.config.redisUrl), prefix: stopped.config.queuePrefix });
    try {
      // The nine before the burst are relayed at once: they are routed before the rest is sent, since a claim that a
      // loaded machine runs only after the tenth has come would find the burst already noticed.
      for (let i = 0; i < 9; i++) expect((await postSignedEvent(stopped.url, uniqueEvent())).status).toBe(200);
      await waitFor(async () => (await routedCount(stopped)) >= 9, 30_000, 'the deliveries before the burst to be routed');
      for (let i = 9; i < 30; i++) expect((await postSignedEvent(stopped.url, uniqueEvent())).status).toBe(200);
      // Then the replica says it is in a burst, and every other delivery waits in Postgres without a job.
      await waitFor(
        async () => (await relayBursting(stopped)) === 1 && (await routedCount(stopped)) + (await heldCount(stopped)) === 30,
        30_000,
        'the burst noticed and the rest held',
      );
      expect(await routedCount(stopped)).toBeLessThanOrEqual(10);
      await stopped.app.close();

      other = await startHarness({ redisDb: 3, databaseUrl: stopped.databaseUrl, env: { QUEUE_PREFIX: stopped.config.queuePrefix } });
      await waitFor(async () => (await routedCount(other!)) === 30, 30_000, 'the other replica to route the rest');
      const jobs = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'completed', 'failed');
      expect(Object.values(jobs).reduce((a, b) => a + b, 0)).toBe(30); // one route job per delivery, none twice
    } finally {
      await queue.close();
      await other?.close();
      await stopped.close();
    }
  }, 90_000);
});
