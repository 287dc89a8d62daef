import { AutomationPollerService } from '../../src/automations/automation-poller.service.js';
import { RecordNotificationsService } from '../../src/automations/record-notifications.service.js';
import { ZohoRevenueClient } from '../../src/record-crm/zoho/zoho-revenue.client.js';
import { readChangesNow } from '../support/automations.js';
import { CapturingLogger, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = Record<string, any>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

/**
 * Deals within seconds: Zoho's notifications (the simulator's /actions/watch) bring a qualifying Deal in while the
 * schedule's reads are an hour apart, so only a notification can explain a project made at once.
 */
describe('automations: Zoho notifications on the record CRM automation', () => {
  let h: Harness;
  const logs = new CapturingLogger();
  beforeAll(async () => {
    h = await startHarness({
      redisDb: 11,
      recordCrm: true,
      logger: logs,
      env: { AUTOMATION_POLL_SECONDS: '3600', AUTOMATION_NOTIFIED_POLL_SECONDS: '3600', ZOHO_NOTIFICATION_CHECK_SECONDS: '3600' },
    });
    // Zoho must reach the daemon: its own address stands for PUBLIC_URL.
    h.config.publicUrl = h.url;
    const res = await h.admin('/api/automations/record-crm', {
      method: 'PUT',
      json: { create_projects: true, module: 'Deals', field: 'Stage', values: ['Closed Won'], owner: 'owner@example.com' },
    });
    expect(res.status).toBe(200);
  });
  afterAll(() => h.close());

  const zoho = () => h.zoho!;
  const channels = () => h.app.get(RecordNotificationsService);
  const notifications = async () => (await json(await h.admin('/api/automations'))).record_crm.notifications as Json;
  const watchCalls = (method: string) => zoho().api.requests.filter((r) => r.method === method && r.path === '/crm/v8/actions/watch').length;
  const projectsOf = (recordId: string) => [...h.service.projects.values()].filter((p) => p.name.endsWith(`(${recordId})`));

  it('makes the channel on the module (create and edit) and says "notified" with its expiry', async () => {
    const state = await waitFor(async () => ((await notifications()).state === 'notified' ? notifications() : null), 10_000, 'the channel');
    expect(Date.parse(state.channel_expiry)).toBeGreaterThan(Date.now());
    const [channel] = zoho().notifications.live;
    expect(channel).toMatchObject({ events: ['Deals.create', 'Deals.edit'], notifyUrl: `${h.url}/webhooks/record-crm/notifications` });
    expect(channel.token).toMatch(/^[\w-]{43}$/);
  });

  it('turns a Deal edited to a qualifying stage into a mapped project within 10 s, with no read of the changes', async () => {
    const listsBefore = zoho().api.requests.filter((r) => r.method === 'GET' && r.path === '/crm/v8/Deals' && !r.query.has('ids')).length;
    const deal = zoho().addRecord('Deals', undefined, { Deal_Name: 'Roof', Stage: 'Qualification' });
    zoho().modifyRecord('Deals', deal, { Stage: 'Closed Won' });
    const mapping = await waitFor(
      async () => ((await json(await h.admin('/api/mappings?crm=record'))).items as Json[]).find((m) => m.record_crm_record_id === deal),
      10_000,
      'the mapping of the notified Deal',
    );
    expect(mapping).toMatchObject({ record_crm_module: 'Deals', source: 'automation' });
    expect(projectsOf(deal)).toHaveLength(1);
    // Found by the notification: the module's changes were never listed.
    expect(zoho().api.requests.filter((r) => r.method === 'GET' && r.path === '/crm/v8/Deals' && !r.query.has('ids')).length).toBe(listsBefore);
    expect(
      zoho()
        .notifications.sent.filter((s) => s.ids.includes(deal))
        .map((s) => [s.operation, s.status ?? 'unanswered']),
    ).toEqual([
      ['insert', 200],
      ['update', 200],
    ]);
  });

  it("knows Zoho's notification of crm-sync's own update by the fields it names (affected_fields): no read; a person's edit is read", async () => {
    const reads = () => zoho().api.requests.filter((r) => r.method === 'GET' && r.path === '/crm/v8/Deals' && r.query.has('ids')).length;
    const deal = zoho().addRecord('Deals', undefined, { Deal_Name: 'Own write', Stage: 'Qualification' });
    await waitFor(() => zoho().notifications.sent.some((s) => s.ids.includes(deal) && s.status === 200), 5_000, 'the insert notified');
    await waitFor(async () => reads() > 0 && 'read', 5_000, 'the insert read');
    const before = reads();
    // crm-sync writes the Deal (as update_deal does); Zoho notifies that update too.
    await h.app.get(ZohoRevenueClient).updateRecord('Deals', deal, { Amount: 10, Closing_Date: '2026-11-28' });
    const updates = () => zoho().notifications.sent.filter((s) => s.ids.includes(deal) && s.operation === 'update');
    const [own] = await waitFor(() => (updates()[0]?.status === 200 ? updates() : null), 5_000, 'own update notified');
    expect(JSON.parse(own.answer)).toEqual({ status: 'own writes' });
    // A person's edit of a field crm-sync did not write: read.
    zoho().modifyRecord('Deals', deal, { Stage: 'Needs Analysis' });
    const [, person] = await waitFor(() => (updates()[1]?.status === 200 ? updates() : null), 5_000, "the person's edit notified");
    expect(JSON.parse(person.answer)).toEqual({ status: 'accepted' });
    await waitFor(async () => reads() > before && 'read', 5_000, "the person's edit read");
  });

  it('refuses a notification with a wrong token, and logs neither token', async () => {
    const [channel] = zoho().notifications.live;
    const deal = zoho().addRecord('Deals', undefined, { Deal_Name: 'Forged', Stage: 'Closed Won' });
    const forged = await fetch(`${h.url}/webhooks/record-crm/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ channel_id: Number(channel.channelId), token: 'wrong-token-of-a-forger', module: 'Deals', operation: 'update', ids: [deal] }),
    });
    expect(forged.status).toBe(401);
    const unknown = await fetch(`${h.url}/webhooks/record-crm/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ channel_id: 1, token: channel.token, module: 'Deals', ids: [deal] }),
    });
    expect(unknown.status).toBe(401);
    const text = logs.lines.join('\n');
    expect(text).not.toContain('wrong-token-of-a-forger');
    expect(text).not.toContain(channel.token!);
    const sealed = await h.database.query<Json[]>(`SELECT sealed_token FROM record_notification_channel`);
    expect(sealed[0].sealed_token).not.toContain(channel.token!);
  });

  it('renews the channel by PATCH (with channel_id, notify_url and events, as Zoho requires) twice, then a qualifying Deal still becomes a project within 10 s', async () => {
    const lifetime = h.config.zohoNotifications.channelMinutes;
    // A channel of 4 s: renewed once less than half of it is left.
    h.config.zohoNotifications.channelMinutes = 4 / 60;
    try {
      zoho().notifications.dropChannel();
      const postsBefore = watchCalls('POST');
      await channels().keepChannel();
      expect(watchCalls('POST')).toBe(postsBefore + 1);
      const [made] = zoho().notifications.live;
      expect(made.events).toEqual(['Deals.create', 'Deals.edit']);
      expect((await notifications()).state).toBe('notified');

      const patchesBefore = watchCalls('PATCH');
      let expiry = made.expiresAt;
      await waitFor(
        async () => {
          await channels().keepChannel();
          // Each renewal is taken: the channel lives on, later each time.
          const [live] = zoho().notifications.live;
          expect(live?.channelId).toBe(made.channelId);
          expect(live.expiresAt).toBeGreaterThanOrEqual(expiry);
          expiry = live.expiresAt;
          return watchCalls('PATCH') >= patchesBefore + 2;
        },
        15_000,
        'two renewals',
      );
      const patches = zoho()
        .api.requests.filter((r) => r.method === 'PATCH' && r.path === '/crm/v8/actions/watch')
        .slice(patchesBefore);
      for (const patch of patches) {
        const [item] = (JSON.parse(patch.body.toString()) as Json).watch as Json[];
        expect(item).toMatchObject({
          channel_id: Number(made.channelId),
          notify_url: `${h.url}/webhooks/record-crm/notifications`,
          events: ['Deals.create', 'Deals.edit'],
        });
      }
      expect(zoho().notifications.live[0].expiresAt).toBeGreaterThan(made.expiresAt);
      expect((await notifications()).state).toBe('notified');
      expect(Date.parse((await notifications()).channel_expiry)).toBe(Math.floor(zoho().notifications.live[0].expiresAt / 1000) * 1000);

      // After the renewals the channel still brings a qualifying Deal in within 10 s of its notification.
      const deal = zoho().addRecord('Deals', undefined, { Deal_Name: 'After renewals', Stage: 'Qualification' });
      zoho().modifyRecord('Deals', deal, { Stage: 'Closed Won' });
      const notified = await waitFor(
        async () => zoho().notifications.sent.find((s) => s.ids.includes(deal) && s.operation === 'update'),
        5_000,
        'the notification',
      );
      const notifiedAt = Date.now();
      expect(notified.channelId).toBe(made.channelId);
      await waitFor(
        async () => ((await json(await h.admin('/api/mappings?crm=record'))).items as Json[]).find((m) => m.record_crm_record_id === deal),
        10_000,
        'the mapping of the Deal notified after the renewals',
      );
      expect(Date.now() - notifiedAt).toBeLessThan(10_000);
      expect(projectsOf(deal)).toHaveLength(1);
    } finally {
      h.config.zohoNotifications.channelMinutes = lifetime;
    }
  });

  it('reads at the longer period while notified, at the normal one without PUBLIC_URL (and says so)', async () => {
    const poller = h.app.get(AutomationPollerService);
    const lists = () => zoho().api.requests.filter((r) => r.method === 'GET' && r.path === '/crm/v8/Deals' && !r.query.has('ids')).length;
    await readChangesNow(h, 'record-crm');
    const before = lists();
    await poller.pollRecordCrmOnSchedule();
    expect(lists()).toBe(before);

    h.config.publicUrl = null;
    await channels().keepChannel();
    expect(zoho().notifications.live).toEqual([]);
    expect(await notifications()).toMatchObject({ state: 'polling', reason: expect.stringContaining('PUBLIC_URL') });
    await poller.pollRecordCrmOnSchedule();
    expect(lists()).toBe(before + 1);
  });
});
