import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALERT_SINK, type AlertSink } from '../../src/alerts/alert-sink.js';
import { RetentionService } from '../../src/operations/retention.service.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { events, signWebhook } from '../../sim/service/index.js';
import { EVENTS_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';

// Redis db 5 is this file's (see `grep -n redisDb test/*.ts`; 4 is webhooks-restart's).
const REDIS_DB = 5;
const VIEWER_TOKEN = 'alerts-viewer-token-0123456789';
/** Starting a harness is a wait, not a promise: on a loaded 2-core machine it has taken over 30 s. */
const HARNESS_START_MS = 90_000;

interface Received {
  at: number;
  path: string;
  body: { text: string; kind: string; count: number; entries: string[]; dashboard_url: string | null };
}

/** The alert receiver: a tiny HTTP server on 127.0.0.1 that records what it is sent and answers as told. */
class Receiver {
  readonly messages: Received[] = [];
  answer: { status: number; delayMs: number } = { status: 200, delayMs: 0 };
  private server?: Server;
  /** Answers still held back by `delayMs`, each answering when called. */
  private readonly held = new Set<() => void>();

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.messages.push({ at: Date.now(), path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'] });
        const { status, delayMs } = this.answer;
        const answer = () => {
          clearTimeout(timer);
          this.held.delete(answer);
          if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
        };
        const timer = setTimeout(answer, delayMs).unref();
        this.held.add(answer);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  /** Gives every answer still held back now, so that a test is not kept waiting for what it has already asserted. */
  answerHeldNow(): void {
    for (const answer of [...this.held]) answer();
  }

  url(path = '/services/T000/B000/secret-path-token'): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}${path}`;
  }

  of(kind: string): Received[] {
    return this.messages.filter((m) => m.body.kind === kind);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

interface AlertItem {
  id: string;
  kind: string;
  status: string;
  count: number;
  entries: string[];
  text: string;
  error: string | null;
  sent_at: string | null;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('alerts', () => {
  let h: Harness;
  const receiver = new Receiver();
  let seq = 0;

  beforeAll(async () => {
    await receiver.start();
    h = await startHarness({
      redisDb: REDIS_DB,
      appointmentCrm: true,
      env: {
        ALERT_WEBHOOK_URL: receiver.url(),
        ALERT_MIN_INTERVAL_SECONDS: '1',
        PUBLIC_URL: 'https://sync.example.com/',
        ADMIN_TOKENS: `viewer1:viewer:${VIEWER_TOKEN}`,
      },
      tune: (c) => {
        // Short enough for the slow receiver test, long enough that a loaded machine never times out a prompt answer.
        c.alerts.timeoutMs = 2_000;
        // The look for rows a stopped replica left: every 5 s by default, here every interval (the stopped-replica test waits for it).
        c.alerts.pendingSweepMs = 1_000;
      },
    });
  }, HARNESS_START_MS);
  afterAll(async () => {
    await h.close();
    await receiver.stop();
  });

  /** A send whose sale the CRM refuses with a 400 (saying `error`): its push_line_items entry fails for good at once. */
  async function failingSend(error = 'unknown unit "ft"', name?: string): Promise<string> {
    const project = h.service.addProject(name ? { name } : {});
    const drawing = h.service.addDrawing(project.id);
    const appointmentId = `90071992547409${100 + seq++}`;
    h.appointmentCrm!.addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);
    // Shown once (crm-sync knows it by its mapping), so its name is known (P4) and the alert names it.
    expect((await h.admin(`/api/projects/${project.id}`)).status).toBe(200);
    h.appointmentCrm!.injectFault({ method: 'PUT', path: `/appointments/${appointmentId}/sale`, status: 400, body: { error }, times: 1 });
    const res = await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: project.id, drawing_id: drawing.id } });
    expect(res.status).toBe(202);
    const [entry] = await settled(h, project.id, ['push_line_items']);
    expect(entry.status).toBe('failed');
    return entry.id;
  }

  async function succeedingSend(): Promise<void> {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const appointmentId = `90071992547409${100 + seq++}`;
    h.appointmentCrm!.addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);
    const res = await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: project.id, drawing_id: drawing.id } });
    expect(res.status).toBe(202);
    const entries = await settled(h, project.id, ['push_line_items', 'set_status']);
    expect(entries.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
  }

  /**
   * When the last `count` action_failed messages were sent, on the throttle's own clock (Postgres's `sent_at`): their
   * arrival times at the receiver also carry each POST's latency, which a loaded machine stretches unevenly.
   */
  async function lastSendTimes(count: number): Promise<number[]> {
    const sent = await h.database.query<Array<{ ms: string }>>(
      `SELECT (EXTRACT(EPOCH FROM sent_at) * 1000)::bigint::text AS ms FROM alert
        WHERE kind = 'action_failed' AND sent_at IS NOT NULL ORDER BY sent_at DESC LIMIT $1`,
      [count],
    );
    return sent.map((r) => Number(r.ms)).reverse();
  }

  /** The interval in force (ALERT_MIN_INTERVAL_SECONDS, 1 here unless a test widens it); 10 ms of slack for the rounding to whole milliseconds. */
  function expectSpacedByTheInterval(times: number[]): void {
    const intervalMs = h.config.alerts.minIntervalSeconds * 1000;
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(intervalMs - 10);
  }

  /**
   * Makes the next message go out at once, as if the interval had passed since the last one, without waiting it out:
   * once every earlier message is sent (none pending or being sent), their `sent_at`, the throttle's clock, is moved
   * back by the interval in force. The throttle compares it with Postgres's `now()`, so this is time passing for it.
   */
  async function quietInterval(): Promise<void> {
    await waitFor(
      async () => (await h.database.query<unknown[]>(`SELECT 1 FROM alert WHERE status IN ('pending', 'sending')`)).length === 0,
      15_000,
      'earlier alerts sent',
    );
    await h.database.query(`UPDATE alert SET sent_at = sent_at - make_interval(secs => $1) WHERE sent_at IS NOT NULL`, [
      h.config.alerts.minIntervalSeconds + 1,
    ]);
  }

  /**
   * Runs `work` with a wider interval: failing sends take seconds on a loaded machine, so a burst of them spreads over
   * more than the 1 s the other tests use, and would be split into more messages than the test means to cause.
   */
  async function withInterval(seconds: number, work: () => Promise<void>): Promise<void> {
    h.config.alerts.minIntervalSeconds = seconds;
    try {
      await work();
    } finally {
      h.config.alerts.minIntervalSeconds = 1;
    }
  }

  const alerts = async (query = ''): Promise<{ items: AlertItem[]; next_cursor: string | null }> => {
    const res = await h.admin(`/api/alerts${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as never;
  };

  it('sends one message for an action failed for good, with the right fields', async () => {
    const id = await failingSend();
    const [message] = await waitFor(() => (receiver.of('action_failed').length > 0 ? receiver.of('action_failed') : null), 15_000, 'the alert');
    expect(message.path).toBe('/services/T000/B000/secret-path-token');
    expect(message.body).toEqual({
      text: expect.stringContaining('1 sync action failed for good') as string,
      kind: 'action_failed',
      count: 1,
      entries: [id],
      dashboard_url: 'https://sync.example.com/admin',
    });
    expect(message.body.text).toMatch(new RegExp(`#${id} push_line_items \\(project Project \\d+ \\d{17}\\)`));
    const row = await waitFor(async () => (await alerts()).items.find((a) => a.kind === 'action_failed' && a.status === 'sent'), 15_000, 'the row');
    expect(row).toMatchObject({ count: 1, entries: [id], error: null });
    await new Promise((r) => setTimeout(r, 1_300));
    expect(receiver.of('action_failed')).toHaveLength(1);
  });

  it('escapes what the CRM and the service wrote in the text: no <!channel>, mention or link of theirs reaches Slack', async () => {
    await quietInterval();
    const injected = '<!channel> see <https://evil.example|your invoice> & pay';
    const id = await failingSend(`unit ${injected}`, 'Smith <!here> <@U024BE7LH>');
    const message = await waitFor(() => receiver.of('action_failed').find((m) => m.body.entries.includes(id)), 15_000, 'the alert');
    const { text } = message.body;
    expect(text).toContain('&lt;!channel&gt; see &lt;https://evil.example|your invoice&gt; &amp; pay');
    expect(text).toContain('Smith &lt;!here&gt; &lt;@U024BE7LH&gt;');
    expect(text).not.toMatch(/[<>]/);
  });

  // Before the tests that widen the interval: the abandoned message is found by the daemon's own look (the sweep, or
  // the timer the last message set), and a wider interval's timer would hold that look back by its length.
  it('a message a stopped replica left mid-send is recorded failed, saying so, and its events sent in the next', async () => {
    // Earlier tests' messages sent first (quietInterval waits for them), so that the next message holds only the
    // abandoned one's events.
    await quietInterval();
    receiver.messages.length = 0;
    // Answered late, so the list is read while the message is still `sending` (as on a loaded machine): an earlier
    // test's sent row must not pass for it.
    receiver.answer = { status: 200, delayMs: 300 };
    try {
      // What a replica killed between claiming a message and sending it leaves behind.
      const [abandoned] = await h.database.query<Array<{ id: string }>>(
        `INSERT INTO alert (kind, status, count, entries, detail, sent_at, updated_at)
         VALUES ('action_failed', 'sending', 2, '{9007199254740993,9007199254740995}', '#9007199254740993 push_drawings: HTTP 400', now() - interval '2 minutes', now() - interval '2 minutes')
         RETURNING id::text AS id`,
      );
      const [message] = await waitFor(() => (receiver.of('action_failed').length > 0 ? receiver.of('action_failed') : null), 12_000, 'the message');
      expect(message.body).toMatchObject({ kind: 'action_failed', count: 2, entries: ['9007199254740993', '9007199254740995'] });
      expect(message.body.text).toContain('#9007199254740993 push_drawings');
      const listed = await waitFor(async () => {
        const items = (await alerts()).items;
        const left = items.find((a) => a.id === abandoned.id);
        // Ids compared as numbers: as strings, an earlier message's '9' sorts after '12'.
        const sent = items.find((a) => a.kind === 'action_failed' && a.status === 'sent' && BigInt(a.id) > BigInt(abandoned.id));
        return left && sent ? { left, sent } : null;
      });
      expect(listed.left).toMatchObject({ status: 'failed', error: 'not sent: the replica sending it stopped; its events were counted into the next message' });
      expect(listed.sent).toMatchObject({ count: 2, entries: ['9007199254740993', '9007199254740995'] });
      await new Promise((r) => setTimeout(r, 1_300));
      expect(receiver.of('action_failed')).toHaveLength(1);
    } finally {
      receiver.answer = { status: 200, delayMs: 0 };
    }
  });

  it('sends one message for a burst now and counts the rest into the next, after the interval', async () => {
    await withInterval(5, async () => {
      await quietInterval();
      receiver.messages.length = 0;
      const ids = await Promise.all([failingSend(), failingSend(), failingSend(), failingSend()]);
      const messages = await waitFor(
        () => {
          const got = receiver.of('action_failed');
          return got.reduce((n, m) => n + m.body.count, 0) === ids.length ? got : null;
        },
        15_000,
        'every failure counted',
      );
      expect(messages.length).toBeGreaterThanOrEqual(1);
      expect(messages.length).toBeLessThanOrEqual(2);
      // However the failures fell, never two messages within one interval.
      expectSpacedByTheInterval(await lastSendTimes(messages.length));
      expect(messages.flatMap((m) => m.body.entries).sort()).toEqual([...ids].sort());
      for (const m of messages) expect(m.body.text).toContain(`${m.body.count} sync action`);
    });
  }, 60_000);

  it('holds a burst spread over time to one message per interval across the burst', async () => {
    await quietInterval();
    receiver.messages.length = 0;
    const first = await failingSend();
    await waitFor(() => receiver.of('action_failed').length === 1, 15_000, 'the first message');
    // Two sends one after the other fit in the interval (the throttle reads it at each claim, so the first message's 1 s
    // timer finds 5 s in force).
    await withInterval(5, async () => {
      const rest = [await failingSend(), await failingSend()];
      // Counted into a pending row, sent when the interval has passed, not before.
      expect(receiver.of('action_failed')).toHaveLength(1);
      const [, second] = await waitFor(() => (receiver.of('action_failed').length === 2 ? receiver.of('action_failed') : null), 15_000, 'the next');
      expect(receiver.of('action_failed')[0].body).toMatchObject({ count: 1, entries: [first] });
      expect(second.body).toMatchObject({ count: 2 });
      expect([...second.body.entries].sort()).toEqual([...rest].sort());
      expectSpacedByTheInterval(await lastSendTimes(2));
    });
  });

  it('holds the throttle across replicas: one message per interval whichever replica noticed', async () => {
    const replica = await startHarness({
      redisDb: REDIS_DB,
      databaseUrl: h.databaseUrl,
      env: { ALERT_WEBHOOK_URL: receiver.url(), ALERT_MIN_INTERVAL_SECONDS: '5' },
    });
    try {
      await withInterval(5, async () => {
        await quietInterval();
        receiver.messages.length = 0;
        const sinks = [h.app.get<AlertSink>(ALERT_SINK), replica.app.get<AlertSink>(ALERT_SINK)];
        const ids = Array.from({ length: 20 }, (_, i) => String(9_000_000 + i));
        ids.forEach((id, i) => sinks[i % 2].notify('action_failed', { entryId: id, detail: `#${id} test` }));
        const messages = await waitFor(
          () => {
            const got = receiver.of('action_failed');
            return got.reduce((n, m) => n + m.body.count, 0) === ids.length ? got : null;
          },
          15_000,
          'all 20 counted',
        );
        // Both replicas count into the one pending row: the first message now, the rest together after the interval.
        expect(messages.length).toBeLessThanOrEqual(2);
        expectSpacedByTheInterval(await lastSendTimes(messages.length));
        expect(messages.flatMap((m) => m.body.entries).sort()).toEqual([...ids].sort());
      });
    } finally {
      await replica.close();
    }
  }, 60_000);

  it('a dead receiver leaves syncing unaffected; the alert is recorded failed with the reason, host only', async () => {
    await quietInterval();
    const port = await closedPort();
    h.config.alerts.webhookUrl = `http://127.0.0.1:${port}/hooks/secret-path-token`;
    try {
      const failedId = await failingSend();
      await succeedingSend();
      const started = Date.now();
      await deliverEvent(h, events.projectCreated({ id: `4602962165269${seq++}`, name: 'alerts dead receiver', tags: [] } as never));
      expect(Date.now() - started).toBeLessThan(1_000);
      const row = await waitFor(
        async () => (await alerts()).items.find((a) => a.entries.includes(failedId) && a.status === 'failed'),
        15_000,
        'the failed alert row',
      );
      expect(row.error).toContain(`127.0.0.1:${port}`);
      expect(row.error).not.toContain('secret-path-token');
      expect(row.error).toMatch(/ECONNREFUSED|fetch failed/);
    } finally {
      h.config.alerts.webhookUrl = receiver.url();
    }
  });

  it('a receiver answering 500 slowly is timed out; syncing goes on meanwhile', async () => {
    await quietInterval();
    // Far longer than the sync below takes even on a loaded machine: finishing before it proves nothing waited for it.
    const slowAnswerMs = 10_000;
    receiver.answer = { status: 500, delayMs: slowAnswerMs };
    try {
      const failedId = await failingSend();
      await waitFor(() => receiver.of('action_failed').some((m) => m.body.entries.includes(failedId)), 15_000, 'the POST');
      const started = Date.now();
      await succeedingSend();
      const res = await fetch(`${h.url}/webhooks/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-signature': signWebhook(EVENTS_SECRET, '{"event":"nothing.known","data":{}}') },
        body: '{"event":"nothing.known","data":{}}',
      });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(slowAnswerMs);
      const row = await waitFor(
        async () => (await alerts()).items.find((a) => a.entries.includes(failedId) && a.status === 'failed'),
        15_000,
        'the failed alert row',
      );
      expect(row.error).toContain('no answer within 2000 ms');
      expect(row.error).not.toContain('secret-path-token');
    } finally {
      receiver.answer = { status: 200, delayMs: 0 };
    }
  });

  it('the test button sends one now whatever the throttle, and says what happened', async () => {
    receiver.messages.length = 0;
    const send = async () => {
      const res = await h.admin('/api/alerts/test', { method: 'POST' });
      expect(res.status).toBe(200);
      return (await res.json()) as { id: string; status: string; error: string | null; http_status: number | null; webhook_host: string };
    };
    const [one, two] = [await send(), await send()];
    expect(one).toMatchObject({ status: 'sent', error: null, http_status: 200, webhook_host: new URL(receiver.url()).host });
    expect(two.status).toBe('sent');
    expect(receiver.of('test')).toHaveLength(2);
    expect(receiver.of('test')[0].body).toMatchObject({ kind: 'test', count: 1, entries: [], dashboard_url: 'https://sync.example.com/admin' });

    receiver.answer = { status: 500, delayMs: 0 };
    try {
      const refused = await send();
      expect(refused).toMatchObject({ status: 'failed', http_status: 500 });
      expect(refused.error).toContain('HTTP 500');
    } finally {
      receiver.answer = { status: 200, delayMs: 0 };
    }
  });

  it('lists alerts newest first, paged, and shows the settings without the URL path', async () => {
    const all = await alerts();
    expect(all.items.length).toBeGreaterThanOrEqual(5);
    const ids = all.items.map((a) => Number(a.id));
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(all.items.every((a) => ['sent', 'failed', 'suppressed'].includes(a.status))).toBe(true);
    const page1 = await alerts('?limit=2');
    expect(page1.items).toHaveLength(2);
    expect(page1.next_cursor).toBe(page1.items[1].id);
    const page2 = await alerts(`?limit=2&cursor=${page1.next_cursor}`);
    expect(page2.items[0].id).toBe(all.items[2].id);

    const res = await h.admin('/api/settings');
    expect(res.status).toBe(200);
    const settings = await res.json();
    expect(settings).toEqual({
      retention: { sync_log_days: 90, inbox_days: 30 },
      alerts: { webhook_configured: true, webhook_host: new URL(receiver.url()).host, min_interval_seconds: 1, public_url: 'https://sync.example.com' },
    });
    expect(JSON.stringify(settings)).not.toContain('secret-path-token');
    expect((await fetch(`${h.url}/api/alerts`)).status).toBe(401);

    // A viewer reads both; only an admin sends a test alert.
    const asViewer = (path: string, method = 'GET') => fetch(`${h.url}${path}`, { method, headers: { authorization: `Bearer ${VIEWER_TOKEN}` } });
    expect((await asViewer('/api/alerts')).status).toBe(200);
    expect((await asViewer('/api/settings')).status).toBe(200);
    const refused = await asViewer('/api/alerts/test', 'POST');
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toContain('admin');
  });

  it('without ALERT_WEBHOOK_URL, records the alert as suppressed and sends nothing', async () => {
    await quietInterval();
    h.config.alerts.webhookUrl = null;
    receiver.messages.length = 0;
    try {
      const id = await failingSend();
      const row = await waitFor(async () => (await alerts()).items.find((a) => a.entries.includes(id)), 15_000, 'the row');
      expect(row).toMatchObject({ status: 'suppressed', count: 1, error: 'ALERT_WEBHOOK_URL is not set' });
      expect(receiver.messages).toHaveLength(0);
    } finally {
      h.config.alerts.webhookUrl = receiver.url();
    }
  });
});

describe('alerts without Postgres, and from the record CRM', () => {
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('webhooks refused with 503 (Postgres down): one message from memory, the 503 answered promptly', async () => {
    // The alert's POST is held this long (and may wait as long): a 503 answered sooner did not wait for it, with a
    // margin no load eats (a bound of 2 s did not hold on a loaded machine).
    const heldMs = 8_000;
    receiver.answer = { status: 200, delayMs: heldMs };
    const down = await startHarness({
      redisDb: REDIS_DB,
      env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/crm_sync', ALERT_WEBHOOK_URL: receiver.url(), ALERT_MIN_INTERVAL_SECONDS: '60' },
      waitForDatabase: false,
      tune: (c) => (c.alerts.timeoutMs = heldMs),
    });
    try {
      for (let i = 0; i < 3; i++) {
        const body = JSON.stringify(events.projectCreated({ id: `5602962165269${i}`, name: `down ${i}`, tags: [] } as never));
        const started = Date.now();
        const res = await fetch(`${down.url}/webhooks/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'service-signature': signWebhook(EVENTS_SECRET, body) },
          body,
        });
        expect(res.status).toBe(503);
        expect(Date.now() - started).toBeLessThan(heldMs);
      }
      const [message] = await waitFor(() => (receiver.of('webhooks_unavailable').length ? receiver.of('webhooks_unavailable') : null), 15_000, 'the alert');
      expect(message.body.text).toContain('refused with 503');
      expect(message.body.count).toBeGreaterThanOrEqual(1);
      expect(message.body.dashboard_url).toBeNull();
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.of('webhooks_unavailable')).toHaveLength(1);
    } finally {
      // The held POST has done its part (the 503s above did not wait for it): answered now, the close need not wait.
      receiver.answerHeldNow();
      await down.close();
      receiver.answer = { status: 200, delayMs: 0 };
    }
  }, 60_000);

  it('the record CRM refusing the refresh token sends record_crm_token_refused', async () => {
    const zoho = await startHarness({
      redisDb: REDIS_DB,
      recordCrm: true,
      env: { RECORD_CRM_REFRESH_TOKEN: 'revoked-refresh-token', ALERT_WEBHOOK_URL: receiver.url() },
    });
    try {
      await fetch(`${zoho.url}/health/ready`);
      const [message] = await waitFor(
        () => (receiver.of('record_crm_token_refused').length ? receiver.of('record_crm_token_refused') : null),
        15_000,
        'the alert',
      );
      expect(message.body).toMatchObject({ kind: 'record_crm_token_refused', count: 1, entries: [] });
      expect(message.body.text).toContain('RECORD_CRM_REFRESH_TOKEN');
      expect(message.body.text).not.toContain('revoked-refresh-token');
      await waitFor(async () => ((await zoho.database.query(`SELECT 1 FROM alert WHERE status = 'sent'`)) as unknown[]).length > 0, 15_000, 'sent');
      const rows = (await zoho.database.query(`SELECT status FROM alert WHERE kind = 'record_crm_token_refused'`)) as Array<{ status: string }>;
      expect(rows).toEqual([{ status: 'sent' }]);
    } finally {
      await zoho.close();
    }
  }, 60_000);
});

describe('retention', () => {
  let h: Harness;
  beforeAll(async () => {
    // A batch of 2 rows per statement proves the looping on a handful of rows.
    h = await startHarness({ redisDb: REDIS_DB, tune: (c) => (c.retention.batchSize = 2) });
  }, HARNESS_START_MS);
  afterAll(() => h.close());

  const entry = async (status: string, daysAgo: number, parentId: string | null = null, inboxId: string | null = null): Promise<string> => {
    const finished = ['succeeded', 'failed', 'skipped'].includes(status);
    const rows = (await h.database.query(
      `INSERT INTO sync_log (kind, trigger, status, parent_id, inbox_id, created_at, updated_at, finished_at, enqueued_at, not_before)
       VALUES ('associate', 'schedule', $1, $2, $3, now() - make_interval(days => $4), now() - make_interval(days => $4),
               CASE WHEN $5 THEN now() - make_interval(days => $4) END, now(), now() + interval '1 day')
       RETURNING id::text AS id`,
      [status, parentId, inboxId, daysAgo, finished],
    )) as Array<{ id: string }>;
    return rows[0].id;
  };
  const delivery = async (status: string, daysAgo: number): Promise<string> => {
    const rows = (await h.database.query(
      `INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status, received_at, routed_at, enqueued_at)
       VALUES ('events', 'project.created', $1, sha256($1), $2, now() - make_interval(days => $3), now() - make_interval(days => $3), now())
       RETURNING id::text AS id`,
      [Buffer.from(`retention ${status} ${daysAgo} ${Math.random()}`), status, daysAgo],
    )) as Array<{ id: string }>;
    return rows[0].id;
  };
  const alert = async (status: string, daysAgo: number): Promise<string> => {
    const rows = (await h.database.query(
      `INSERT INTO alert (kind, status, count, created_at, sent_at) VALUES ('test', $1, 1, now() - make_interval(days => $2), now() - make_interval(days => $2))
       RETURNING id::text AS id`,
      [status, daysAgo],
    )) as Array<{ id: string }>;
    return rows[0].id;
  };
  const existing = async (table: string, ids: string[]): Promise<string[]> =>
    ((await h.database.query(`SELECT t.id::text AS id FROM ${table} t WHERE t.id = ANY($1::bigint[]) ORDER BY t.id`, [ids])) as Array<{ id: string }>).map(
      (r) => r.id,
    );

  it('deletes old finished rows in batches, keeping unfinished work, recent rows and received deliveries', async () => {
    // The sync log: old finished entries go; old unfinished ones, recent ones and parents of unfinished ones stay.
    const oldDone = [
      await entry('succeeded', 100),
      await entry('failed', 95),
      await entry('skipped', 91),
      await entry('succeeded', 200),
      await entry('failed', 120),
    ];
    const oldQueued = await entry('queued', 100);
    const oldRunning = await entry('running', 100);
    const recentDone = await entry('succeeded', 89);
    const parentOfQueued = await entry('succeeded', 100);
    const queuedChild = await entry('queued', 100, parentOfQueued);
    const parentOfDone = await entry('succeeded', 100);
    const doneChild = await entry('succeeded', 100, parentOfDone);

    // The inbox: old routed, ignored and failed deliveries go; received ones and recent ones stay, and so does a
    // delivery whose action is unfinished.
    const oldDeliveries = [await delivery('routed', 40), await delivery('ignored', 31), await delivery('failed', 60)];
    const oldReceived = await delivery('received', 40);
    const recentRouted = await delivery('routed', 29);
    const deliveryOfQueued = await delivery('routed', 40);
    const queuedOfDelivery = await entry('queued', 1, null, deliveryOfQueued);

    const oldAlerts = [await alert('sent', 91), await alert('failed', 100)];
    const recentAlert = await alert('sent', 10);
    const oldPending = await alert('pending', 100);

    const counts = await h.app.get(RetentionService).run();

    expect(counts.syncLog).toBe(oldDone.length + 2); // the parent whose child is done, and that child
    expect(counts.inbox).toBe(oldDeliveries.length);
    expect(counts.alerts).toBe(oldAlerts.length);
    // 7 entries at 2 per statement: 4 statements; 3 deliveries: 2; 2 alerts: 2 (the last one finds nothing).
    expect(counts.statements).toBe(4 + 2 + 2);

    expect(await existing('sync_log', [...oldDone, parentOfDone, doneChild])).toEqual([]);
    expect(await existing('sync_log', [oldQueued, oldRunning, recentDone, parentOfQueued, queuedChild, queuedOfDelivery])).toEqual(
      [oldQueued, oldRunning, recentDone, parentOfQueued, queuedChild, queuedOfDelivery].sort((a, b) => Number(a) - Number(b)),
    );
    expect(await existing('webhook_inbox', oldDeliveries)).toEqual([]);
    expect(await existing('webhook_inbox', [oldReceived, recentRouted, deliveryOfQueued])).toEqual([oldReceived, recentRouted, deliveryOfQueued]);
    expect(await existing('alert', oldAlerts)).toEqual([]);
    expect(await existing('alert', [recentAlert, oldPending])).toEqual([recentAlert, oldPending]);

    // A second run finds nothing more.
    expect(await h.app.get(RetentionService).run()).toEqual({ syncLog: 0, inbox: 0, alerts: 0, statements: 3 });
  });

  it('is registered as a daily maintenance task', async () => {
    const { MaintenanceTasksService } = await import('../../src/queues/maintenance.service.js');
    const task = h.app.get(MaintenanceTasksService).get('retention');
    expect(task?.everyMs).toBe(24 * 3600_000);
  });
});
