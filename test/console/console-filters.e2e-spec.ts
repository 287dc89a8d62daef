import type { Browser } from 'playwright-core';
import { ACTION_KINDS } from '../../src/domain/actions.js';
import { SYNC_STATUSES } from '../../src/sync-log/sync-log.row.js';
import { DELIVERY_STATUSES } from '../../src/operations/operations.dto.js';
import { WEBHOOK_ENDPOINTS } from '../../src/webhooks/inbox.row.js';
import { browserTestOf, haveChromium, launchChromium, openConsolePage } from '../support/browser.js';
import { ADMIN_TOKEN, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;

/*
 * The sync log's filters take their values from the daemon (docs/development.md, "The console's types"): the Kind
 * suggestions are every kind of ACTION_KINDS and the Status options every status, as `GET /api/sync-logs/filters`
 * and the OpenAPI document at /docs say, so a new kind needs no console edit.
 */
const browserIt = browserTestOf('console-filters.e2e-spec');

describe('the console: the sync log and inbox filters come from the daemon', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 7 });
    if (haveChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('GET /api/sync-logs/filters and the OpenAPI enums list every action kind and status', async () => {
    const res = await fetch(`${h.url}/api/sync-logs/filters`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ kinds: Object.keys(ACTION_KINDS), statuses: [...SYNC_STATUSES] });
    expect((await fetch(`${h.url}/api/sync-logs/filters`)).status).toBe(401);

    const docs = (await (await fetch(`${h.url}/docs-json`)).json()) as Json;
    expect(docs.components.schemas.ActionKind.enum).toEqual(Object.keys(ACTION_KINDS));
    expect(docs.components.schemas.SyncStatus.enum).toEqual([...SYNC_STATUSES]);
    expect(JSON.stringify(docs.components.schemas.SyncLogEntryView.properties.kind)).toContain('"$ref":"#/components/schemas/ActionKind"');
  });

  it('GET /api/deliveries/filters and the OpenAPI enums list every webhook endpoint and delivery status', async () => {
    const res = await fetch(`${h.url}/api/deliveries/filters`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ endpoints: [...WEBHOOK_ENDPOINTS], statuses: [...DELIVERY_STATUSES] });
    expect((await fetch(`${h.url}/api/deliveries/filters`)).status).toBe(401);

    const docs = (await (await fetch(`${h.url}/docs-json`)).json()) as Json;
    expect(docs.components.schemas.WebhookEndpoint.enum).toEqual([...WEBHOOK_ENDPOINTS]);
    expect(docs.components.schemas.DeliveryStatus.enum).toEqual([...DELIVERY_STATUSES]);
  });

  browserIt(
    "the inbox's Endpoint and Status filters offer every endpoint and status the daemon lists",
    async () => {
      const { context, page, errors } = await openConsolePage(browser, {
        url: h.url,
        token: ADMIN_TOKEN,
        hash: '#inbox',
        ready: '#inbox-filters',
        refusedStatuses: [401],
      });
      const values = (selector: string) => page.locator(selector).evaluateAll((options) => options.map((o) => o.getAttribute('value')));
      await waitFor(async () => (await values('#inbox-status option')).length === DELIVERY_STATUSES.length + 1, 10_000);
      expect(await values('#inbox-status option')).toEqual(['', ...DELIVERY_STATUSES]);
      expect(await values('#inbox-endpoint option')).toEqual(['', ...WEBHOOK_ENDPOINTS]);
      await page.screenshot({ path: '/tmp/shots/filters-inbox.png', fullPage: true });
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );

  browserIt(
    'the Kind filter suggests every kind of ACTION_KINDS, the Status filter offers every status, and a link keeps its status',
    async () => {
      const { context, page, errors } = await openConsolePage(browser, {
        url: h.url,
        token: ADMIN_TOKEN,
        hash: '#logs/?status=skipped',
        ready: '#log-filters',
        refusedStatuses: [401],
      });
      const values = (selector: string) => page.locator(selector).evaluateAll((options) => options.map((o) => o.getAttribute('value')));
      await waitFor(async () => (await values('#kinds option')).length === Object.keys(ACTION_KINDS).length, 10_000);
      const kinds = await values('#kinds option');
      expect(kinds.sort()).toEqual(Object.keys(ACTION_KINDS).sort());

      await waitFor(async () => (await values('#log-status option')).length === SYNC_STATUSES.length + 1, 10_000);
      const statuses = await values('#log-status option');
      expect(statuses).toEqual(['', ...SYNC_STATUSES]);
      // The link's status, set before the daemon's list came, is still the one chosen.
      expect(await page.locator('#log-status').inputValue()).toBe('skipped');
      await page.screenshot({ path: '/tmp/shots/filters-sync-log.png', fullPage: true });
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );
});
