import { jest } from '@jest/globals';
import { NotificationChannelRepository } from '../../src/automations/notification-channel.repository.js';
import { ConnectionsService } from '../../src/connections/connections.service.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = Record<string, any>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

/**
 * The Zoho notification route's front door (docs/security.md): anyone may POST to it, so a notification's
 * `channel_id` and `token` are checked against what this replica remembers of the channel for a few seconds, before
 * Postgres is read or the token's seal opened: a flood of forged notifications costs at most one read a while.
 */
describe("Zoho notifications: the channel's id and token checked before Postgres or a seal", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      redisDb: 11,
      recordCrm: true,
      env: { AUTOMATION_POLL_SECONDS: '3600', AUTOMATION_NOTIFIED_POLL_SECONDS: '3600', ZOHO_NOTIFICATION_CHECK_SECONDS: '3600' },
    });
    // Zoho must reach the daemon: its own address stands for PUBLIC_URL.
    h.config.publicUrl = h.url;
    const res = await h.admin('/api/automations/record-crm', {
      method: 'PUT',
      json: { create_projects: true, module: 'Deals', field: 'Stage', values: ['Closed Won'], owner: 'owner@example.com' },
    });
    expect(res.status).toBe(200);
    await waitFor(async () => (await json(await h.admin('/api/automations'))).record_crm.notifications.state === 'notified', 10_000, 'the channel');
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await h.close();
  });

  const notify = (body: unknown) =>
    fetch(`${h.url}/webhooks/record-crm/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers a flood of forged notifications 401 with at most one read of the channel and one opened seal', async () => {
    const [channel] = h.zoho!.notifications.live;
    const reads = jest.spyOn(h.app.get(NotificationChannelRepository), 'find');
    const connections = h.app.get(ConnectionsService);
    const opens = jest.spyOn(connections, 'open');
    const deal = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Forged', Stage: 'Closed Won' });
    const forged = [
      ...Array.from({ length: 20 }, (_, i) => ({ channel_id: Number(channel.channelId), token: `wrong-token-${i}`, module: 'Deals', ids: [deal] })),
      ...Array.from({ length: 10 }, (_, i) => ({ channel_id: 1000 + i, token: channel.token, module: 'Deals', ids: [deal] })),
      { channel_id: Number(channel.channelId), module: 'Deals', ids: [deal] },
      { token: channel.token, module: 'Deals', ids: [deal] },
    ];
    const answers = await Promise.all(forged.map((body) => notify(body)));
    expect(answers.map((a) => a.status)).toEqual(forged.map(() => 401));
    expect(reads.mock.calls.length).toBeLessThanOrEqual(1);
    expect(opens.mock.calls.filter(([, binding]) => binding.startsWith('crm-sync/zoho-notification-token')).length).toBeLessThanOrEqual(1);

    // The channel's own notification still gets through.
    const real = await notify({ channel_id: Number(channel.channelId), token: channel.token, module: 'Deals', operation: 'update', ids: [deal] });
    expect(real.status).toBe(200);
    expect(await real.json()).toEqual({ status: 'accepted' });
  });
});
