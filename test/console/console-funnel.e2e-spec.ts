import type { Browser, Page } from 'playwright-core';
import { mapRecord } from '../support/zoho-records.js';
import { browserTestOf, haveChromium, launchChromium, openConsolePage } from '../support/browser.js';
import { ADMIN_TOKEN, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;

/*
 * The Overview's funnel and the links out to the CRMs, in a browser (docs/operations.md, "The funnel" and "Links to
 * the CRMs"): the numbers drawn are those of a history written into the sync log, a number opens the sync log
 * filtered to the entries behind it; a Zoho Deal and an appointment open in their CRMs from the mappings, the project
 * view and the sync log. Screenshots in /tmp/shots/funnel-*.png.
 */
const browserIt = browserTestOf('console-funnel.e2e-spec');

describe('the console: the funnel and the links to the CRMs', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 11, appointmentCrm: true, recordCrm: true });
    if (haveChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const openConsole = (hash: string, ready: string) => openConsolePage(browser, { url: h.url, token: ADMIN_TOKEN, hash, ready, refusedStatuses: [401] });
  const shot = (page: Page, name: string) => page.screenshot({ path: `/tmp/shots/funnel-${name}.png`, fullPage: true });

  async function entry(crm: string, kind: string, status: string, payload: object, dedupeKey: string | null = null): Promise<void> {
    await h.database.query(
      `INSERT INTO sync_log (kind, trigger, crm, target, status, payload, dedupe_key, created_at, updated_at)
       VALUES ($1, 'webhook', $2, 'Deals/1', $3, $4, $5, now() - interval '1 hour', now() - interval '1 hour')`,
      [kind, crm, status, JSON.stringify(payload), dedupeKey],
    );
  }

  browserIt(
    'draws each CRM’s steps with the seeded counts and amounts, and a number opens the entries behind it',
    async () => {
      await h.database.query(`INSERT INTO automation_read_hour (crm, hour, records_read, qualifying) VALUES ('record', date_trunc('hour', now()), 12, 3)`);
      await entry('record', 'create_project', 'succeeded', {});
      await entry('record', 'create_project', 'succeeded', {});
      await entry('record', 'update_deal', 'succeeded', { proposalId: '81', status: 'APPROVED', amount: '12500.00' }, 'record:deal:81:APPROVED:12500.00');
      await entry('record', 'update_deal', 'succeeded', { proposalId: '82', status: 'APPROVED', amount: '730.25' }, 'record:deal:82:APPROVED:730.25');
      await entry('record', 'push_quote', 'failed', { drawingId: '5' });

      const { context, page, errors } = await openConsole('', '#overview-funnel .funnel-crm[data-crm="record"] li[data-step="read"]');
      const step = (crm: string, name: string) => page.locator(`#overview-funnel .funnel-crm[data-crm="${crm}"] li[data-step="${name}"]`);
      const text = async (crm: string, name: string) => [
        (await step(crm, name).locator('.funnel-count').textContent())?.trim(),
        (await step(crm, name).locator('.funnel-amount').textContent())?.trim(),
      ];
      expect(await text('record', 'read')).toEqual(['12', '']);
      expect(await text('record', 'qualifying')).toEqual(['3', '']);
      expect(await text('record', 'projects_created')).toEqual(['2', '']);
      const [approved, approvedAmount] = await text('record', 'approved');
      expect(approved).toBe('2');
      expect(approvedAmount!.replace(/[^\d.]/g, '')).toBe('13230.25');
      expect((await text('record', 'written'))[0]).toBe('2');
      expect((await text('record', 'failed'))[0]).toBe('1');
      expect((await text('appointment', 'approved'))[0]).toBe('0');
      // The chart of approved amounts per day: today's bar.
      await page.locator('#overview-funnel svg.amount-chart rect.bar-approved').first().waitFor();
      expect(await page.locator('#overview-funnel svg.amount-chart rect.bar-approved').count()).toBe(1);
      await shot(page, 'overview');

      // The failed number opens the sync log filtered to Zoho's failed entries of the window: the one push_quote.
      await step('record', 'failed').locator('.funnel-count').click();
      await page.locator('#panel-logs').waitFor({ state: 'visible' });
      await waitFor(async () => (await page.locator('#log-rows tr.row').count()) === 1, 10_000, 'the failed entry alone');
      expect(await page.locator('#log-rows tr.row').textContent()).toContain('push_quote');
      expect(await page.locator('#log-crm').inputValue()).toBe('record');
      expect(await page.locator('#log-status').inputValue()).toBe('failed');
      await shot(page, 'drill');
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );

  browserIt(
    'a Zoho Deal and an appointment open in their CRMs from the mappings and the project view',
    async () => {
      const project = h.service.addProject({ name: 'Linked project' });
      const deal = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Linked deal', Stage: 'Qualification' });
      await mapRecord(h, project.id, deal, 'Deals');
      const appointmentId = 'APT-LINK-1';
      h.appointmentCrm!.addAppointment(appointmentId, {
        customer: { name: 'Lee Link', email: null, phone: null, address: null },
        web_url: h.appointmentCrm!.webUrlOf(appointmentId),
      });
      const res = await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: appointmentId, project_id: project.id } });
      expect(res.status).toBe(201);
      // The appointment's address is read from its CRM with its name, the first time the mapping is listed.
      await waitFor(
        async () => ((await (await h.admin(`/api/mappings?project_id=${project.id}`)).json()) as Json).items.every((m: Json) => m.web_url),
        10_000,
        'both addresses',
      );

      const { context, page, errors } = await openConsole(`#project/${project.id}`, '#project-body h2');
      const links = page.locator('#project-body table a.web-link');
      await waitFor(async () => (await links.count()) === 2, 10_000, 'two links out');
      const hrefs = await links.evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('target')]));
      const zoho = hrefs.find(([text]) => text === 'open in Zoho ↗')!;
      expect(zoho[1]).toMatch(new RegExp(`^${h.zoho!.apiDomain.replace(/[.]/g, '\\.')}/crm/org\\d+/tab/Potentials/${deal}$`));
      expect(zoho[2]).toBe('_blank');
      expect(hrefs.find(([text]) => text === 'open in the CRM ↗')![1]).toBe(h.appointmentCrm!.webUrlOf(appointmentId));
      // Each leads to the record's page in its CRM.
      for (const [, href] of hrefs) {
        const page = await fetch(href!);
        expect(page.status).toBe(200);
      }
      expect(await (await fetch(zoho[1]!)).text()).toContain('Linked deal');
      await shot(page, 'links');

      await page.click('#tab-mappings');
      await page.locator('#map-rows tr', { hasText: 'Linked deal' }).locator('a.web-link').waitFor();
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );
});
