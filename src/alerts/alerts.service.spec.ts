import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { DatabaseUnavailableError } from '../database/database.errors.js';
import type { DatabaseService } from '../database/database.service.js';
import type { AlertRepository, AlertRow, ClaimResult } from './alert.repository.js';
import { alertHost, AlertsService } from './alerts.service.js';

const configOf = (webhookUrl: string | null): AppConfig =>
  ({ alerts: { webhookUrl, minIntervalSeconds: 60, timeoutMs: 200, pendingSweepMs: 5_000 }, publicUrl: 'https://sync.example.com' }) as unknown as AppConfig;

const rowOf = (fields: Partial<AlertRow>): AlertRow => ({
  id: '1',
  kind: 'action_failed',
  status: 'sending',
  count: 1,
  entries: [],
  detail: null,
  text: null,
  error: null,
  httpStatus: null,
  createdAt: new Date(),
  sentAt: new Date(),
  ...fields,
});

const settle = () => new Promise((r) => setTimeout(r, 30));

function setUp(webhookUrl: string | null, claim: () => Promise<ClaimResult>) {
  const recordAndClaim = jest.fn(claim);
  const finish = jest.fn(async (..._args: unknown[]) => null);
  const repository = { recordAndClaim, finish, pendingKinds: jest.fn(async () => []) } as unknown as AlertRepository;
  const service = new AlertsService(configOf(webhookUrl), repository, { isReady: true } as DatabaseService);
  return { service, recordAndClaim, finish };
}

describe('AlertsService', () => {
  const fetchMock = jest.fn(async (..._args: unknown[]) => new Response('{}', { status: 200 }));
  const realFetch = globalThis.fetch;
  beforeAll(() => {
    globalThis.fetch = fetchMock as unknown as typeof fetch;
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterAll(() => {
    globalThis.fetch = realFetch;
  });
  beforeEach(() => fetchMock.mockClear());

  it('returns at once and never throws, even when recording fails', async () => {
    const { service } = setUp(null, () => {
      throw new Error('boom');
    });
    expect(() => service.notify('action_failed', { entryId: '5' })).not.toThrow();
    await settle();
    service.onApplicationShutdown();
  });

  it('sends a claimed alert with a sentence holding the count, the ids as strings and the dashboard link', async () => {
    const { service, finish } = setUp('https://hooks.example.com/services/T/B/secret', async () => ({
      claimed: rowOf({ count: 3, entries: ['7', '8', '9'], detail: '#9 push_line_items: HTTP 400' }),
    }));
    service.notify('action_failed', { entryId: '9', detail: '#9 push_line_items: HTTP 400' });
    await settle();
    service.onApplicationShutdown();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('https://hooks.example.com/services/T/B/secret');
    expect(JSON.parse(init.body as string)).toEqual({
      text: 'crm-sync: 3 sync actions failed for good and need review. Latest: #9 push_line_items: HTTP 400',
      kind: 'action_failed',
      count: 3,
      entries: ['7', '8', '9'],
      dashboard_url: 'https://sync.example.com/admin',
    });
    expect(finish).toHaveBeenCalledWith('1', 'sent', expect.any(String), null, 200);
  });

  it('escapes what others wrote into the text, so a CRM name cannot ping the channel or plant a link', async () => {
    const detail = '#9 push_line_items: <!channel> see <https://evil.example|your invoice> & pay';
    const { service } = setUp('https://hooks.example.com/services/T/B/secret', async () => ({ claimed: rowOf({ count: 1, entries: ['9'], detail }) }));
    service.notify('action_failed', { entryId: '9', detail });
    await settle();
    service.onApplicationShutdown();
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    const { text } = JSON.parse(init.body as string) as { text: string };
    expect(text).toBe(
      'crm-sync: 1 sync action failed for good and need review. Latest: #9 push_line_items: &lt;!channel&gt; see &lt;https://evil.example|your invoice&gt; &amp; pay',
    );
    expect(text).not.toMatch(/[<>]/);
  });

  it('records a failed POST with the host only', async () => {
    fetchMock.mockImplementationOnce(async () => new Response('no', { status: 500 }));
    const { service, finish } = setUp('https://hooks.example.com/services/T/B/secret', async () => ({ claimed: rowOf({}) }));
    service.notify('webhooks_unavailable');
    await settle();
    service.onApplicationShutdown();
    expect(finish).toHaveBeenCalledWith('1', 'failed', expect.any(String), 'hooks.example.com answered HTTP 500', 500);
    expect(JSON.stringify(finish.mock.calls)).not.toContain('secret');
  });

  it('without Postgres, sends from memory once per interval and holds the rest', async () => {
    const { service } = setUp('https://hooks.example.com/x', () => Promise.reject(new DatabaseUnavailableError('down')));
    for (let i = 0; i < 5; i++) service.notify('webhooks_unavailable');
    await settle();
    service.onApplicationShutdown();
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('counts the events noticed while a message is being sent at once, not after its POST', async () => {
    let answer!: () => void;
    fetchMock.mockImplementationOnce(() => new Promise<Response>((resolve) => (answer = () => resolve(new Response('{}', { status: 200 })))));
    const claims: ClaimResult[] = [{ claimed: rowOf({}) }, { claimed: null, waitMs: 60_000 }];
    const { service, recordAndClaim, finish } = setUp('https://hooks.example.com/x', async () => claims.shift()!);
    service.notify('action_failed', { entryId: '1' });
    await settle();
    service.notify('action_failed', { entryId: '2' });
    await settle();
    // The first POST still has no answer; the second event is in Postgres already.
    expect(finish).not.toHaveBeenCalled();
    expect(recordAndClaim).toHaveBeenCalledTimes(2);
    expect(recordAndClaim.mock.calls[1].slice(0, 3)).toEqual(['action_failed', 1, ['2']]);
    answer();
    await service.beforeApplicationShutdown();
    service.onApplicationShutdown();
  });

  it('a stop waits for the message being sent to record its outcome', async () => {
    let answer!: () => void;
    fetchMock.mockImplementationOnce(() => new Promise<Response>((resolve) => (answer = () => resolve(new Response('{}', { status: 200 })))));
    const { service, finish } = setUp('https://hooks.example.com/x', async () => ({ claimed: rowOf({ id: '42' }) }));
    service.notify('action_failed', { entryId: '1' });
    await settle();
    const stopped = service.beforeApplicationShutdown();
    setTimeout(answer, 20);
    await stopped;
    expect(finish).toHaveBeenCalledWith('42', 'sent', expect.any(String), null, 200);
    service.onApplicationShutdown();
  });

  it('shows the host of the URL only', () => {
    expect(alertHost('https://hooks.slack.com/services/T0/B0/XYZ')).toBe('hooks.slack.com');
    expect(alertHost(null)).toBeNull();
  });
});
