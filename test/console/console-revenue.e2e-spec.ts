import type { Browser, Page } from 'playwright-core';
import { events } from '../../sim/service/index.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { browserTestOf, haveChromium, launchChromium, openConsolePage } from '../support/browser.js';
import { ADMIN_TOKEN, startHarness, waitFor, type Harness } from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { syncLogEntries, syncLogEntry } from '../support/tables.js';

/*
 * The Revenue screen in a browser (docs/operations.md, "Revenue that stays right"): per CRM the approved proposals in
 * agreement and drifted, the drifts grouped by kind with the three values and who changed them, Heal and Accept;
 * the Overview's funnel's "In agreement" step, the project view's drifts. Screenshots in /tmp/shots/revenue-*.png.
 */
const browserIt = browserTestOf('console-revenue.e2e-spec');
const FINISHED = ['succeeded', 'failed', 'skipped', 'waiting'];

describe('the console: the Revenue screen', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 11, appointmentCrm: true, recordCrm: true });
    h.service.addTemplate('Standard');
    if (haveChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const openConsole = (hash: string, ready: string) => openConsolePage(browser, { url: h.url, token: ADMIN_TOKEN, hash, ready, refusedStatuses: [401] });
  const shot = (page: Page, name: string) => page.screenshot({ path: `/tmp/shots/revenue-${name}.png`, fullPage: true });

  async function check(): Promise<void> {
    const res = await h.admin('/api/revenue/check', { method: 'POST', json: { scope: 'full' } });
    const { id } = (await res.json()) as { id: string };
    await waitFor(async () => FINISHED.includes((await syncLogEntry(h, { id }))?.status ?? '') || null, 20_000, 'the pass');
  }

  browserIt(
    'shows the drifts beside the service, heals one and accepts another; the funnel and the project view show them',
    async () => {
      // An appointment and a Deal, both approved and written; then a person changes each.
      const kitchen = h.service.addProject({ name: 'Alvarez kitchen' });
      h.service.addDrawing(kitchen.id);
      h.appointmentCrm!.addAppointment('APT-7', { web_url: h.appointmentCrm!.webUrlOf('APT-7') });
      await mapAppointment(h, kitchen.id, 'APT-7');
      const fence = h.service.addProject({ name: 'Whitfield fence' });
      h.service.addDrawing(fence.id);
      const dealId = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Whitfield fence', Stage: 'Qualification' });
      await mapRecord(h, fence.id, dealId, 'Deals');
      await deliverEvent(h, events.proposalStatusChanged(h.service.addProposal({ project_id: kitchen.id, status: 'APPROVED', total: 4200 })));
      await deliverEvent(h, events.proposalStatusChanged(h.service.addProposal({ project_id: fence.id, status: 'APPROVED', total: 2500 })));
      await settled(h, kitchen.id, ['set_status']);
      await waitFor(async () => (await syncLogEntries(h, { kind: 'update_deal', status: 'succeeded' })).length === 1 || null, 20_000);
      h.appointmentCrm!.personEdits('APT-7', { status: 'Confirmed' }, 'Jordan Lee');
      h.zoho!.revenue.editByHand('Deals', dealId, { Amount: 1899 });
      await check();

      const { context, page, errors } = await openConsole('#revenue', '#revenue-body .revenue-kind[data-kind="amount"] tr[data-drift]');
      const card = (crm: string) => page.locator(`#revenue-body .revenue-crm[data-crm="${crm}"]`);
      expect(await card('record').locator('.revenue-line.drift .revenue-count').textContent()).toBe('1');
      expect((await card('record').locator('.revenue-line.drift .revenue-amount').textContent())!.replace(/[^\d.]/g, '')).toBe('2500.00');
      expect(await card('appointment').locator('.revenue-line.drift .revenue-count').textContent()).toBe('1');
      const amount = page.locator('#revenue-body .revenue-kind[data-kind="amount"] tr[data-drift]');
      expect(await amount.locator('.revenue-service').textContent()).toBe('2500.00');
      expect(await amount.locator('.revenue-crm-value').textContent()).toBe('1899.00');
      expect(await amount.locator('.revenue-who').textContent()).toContain('Rita Rep');
      expect(await amount.locator('a.web-link').getAttribute('href')).toContain(`/tab/Deals/${dealId}`);
      const status = page.locator('#revenue-body .revenue-kind[data-kind="status"] tr[data-drift]');
      expect(await status.locator('.revenue-crm-value').textContent()).toBe('Confirmed');
      expect(await status.locator('.revenue-who').textContent()).toContain('Jordan Lee');
      await shot(page, 'screen');

      // Heal the Deal's amount: the normal update_deal runs, and the row goes once the next pass agrees.
      await amount.locator('button[data-action="heal"]').click();
      await waitFor(async () => (await syncLogEntries(h, { kind: 'update_deal', status: 'succeeded' })).length === 2 || null, 20_000, 'the heal');
      expect(h.zoho!.revenue.fieldsOf('Deals', dealId).Amount).toBe(2500);
      // Accept the appointment's status: it leaves the open drifts.
      await status.locator('button[data-action="accept"]').click();
      await waitFor(async () => (await page.locator('#revenue-body tr[data-drift]').count()) === 0 || null, 10_000, 'no open drift left');
      await check();
      await page.click('#refresh-button');
      await page.locator('#revenue-body .revenue-none').waitFor();
      expect(await card('record').locator('.revenue-line.agree .revenue-count').first().textContent()).toBe('1');

      // The accepted one is listed under "accepted".
      await page.selectOption('#revenue-state', 'accepted');
      await page.locator('#revenue-body .revenue-kind[data-kind="status"] tr[data-drift]').waitFor();

      // The project view shows its drift; the funnel its "In agreement" step.
      await page.evaluate(`location.hash = '#project/${kitchen.id}'`);
      await page.locator('#project-drifts table tr[data-kind="status"]').waitFor();
      await shot(page, 'project');
      await page.click('#tab-overview');
      const agreement = page.locator('#overview-funnel .funnel-crm[data-crm="record"] li[data-step="in_agreement"] .funnel-count');
      await agreement.waitFor();
      expect(await agreement.textContent()).toBe('1');
      await shot(page, 'overview');
      expect(errors).toEqual([]);
      await context.close();
    },
    90_000,
  );
});
