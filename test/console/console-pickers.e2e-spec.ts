import type { Browser } from 'playwright-core';
import { browserTestOf, haveChromium, launchChromium, openConsolePage } from '../support/browser.js';
import { ADMIN_TOKEN, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;

/*
 * The Automations screen's Zoho pickers in a browser (GET /api/crm-metadata/record-crm/fields): the qualifying field
 * chosen from the module's fields, its pick list offered as checkboxes, the job-number field chosen; a field saved
 * earlier that Zoho no longer lists is shown as such. The appointment statuses (GET
 * /api/crm-metadata/appointment-crm/statuses) ticked from the CRM's `GET /statuses`, or from the statuses the reads
 * have seen when the CRM answers 404. Screenshots in /tmp/shots/pickers.png and /tmp/shots/statuses.png.
 */
const browserIt = browserTestOf('console-pickers.e2e-spec');

describe('the Automations screen: Zoho settings chosen, not typed', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 10, recordCrm: true, appointmentCrm: true, env: { AUTOMATION_POLL_SECONDS: '0' } });
    if (haveChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('lists a module’s fields with their pick lists, from Zoho', async () => {
    const res = await h.admin('/api/crm-metadata/record-crm/fields?module=Deals');
    expect(res.status).toBe(200);
    const stage = ((await res.json()) as Json).items.find((f: Json) => f.api_name === 'Stage');
    expect(stage).toMatchObject({ label: 'Stage', data_type: 'picklist' });
    expect(stage.pick_list.map((p: Json) => p.value)).toContain('Qualification');
    expect((await h.admin('/api/crm-metadata/record-crm/fields?module=Accounts')).status).toBe(400);
    expect(((await (await h.admin('/api/crm-metadata/record-crm/modules')).json()) as Json).items.map((m: Json) => m.api_name)).toEqual([
      'Deals',
      'Quotes',
      'Leads',
      'Contacts',
    ]);
  });

  it('lists the appointment statuses from the CRM, else the ones its reads have seen', async () => {
    const statuses = async () => (await (await h.admin('/api/crm-metadata/appointment-crm/statuses')).json()) as Json;
    expect(await statuses()).toEqual({
      source: 'crm',
      items: h.appointmentCrm!.statuses!.map((s) => ({ value: s.value, label: s.label })),
    });
    const sim = h.appointmentCrm!;
    const listed = sim.statuses;
    sim.statuses = null; // a CRM without GET /statuses: 404
    try {
      expect(await statuses()).toEqual({ source: 'seen', items: [] });
      sim.addAppointment('9007199254740993001', { status: 'Sold', updated_at: '2026-01-02T00:00:00Z' });
      sim.addAppointment('9007199254740993002', { status: 'On Hold', updated_at: '2026-01-02T00:00:01Z' });
      const saved = await h.admin('/api/automations/appointment-crm', {
        method: 'PUT',
        json: { create_projects: true, statuses: ['Rescheduled'], owner: 'owner@example.com', start_from: '2025-12-31T00:00:00Z' },
      });
      expect(saved.status).toBe(200);
      expect((await h.admin('/api/automations/appointment-crm/run', { method: 'POST' })).status).toBe(202);
      const seen = await waitFor(async () => ((await statuses()).items.length === 2 ? await statuses() : null), 20_000, 'the statuses seen');
      expect(seen).toEqual({
        source: 'seen',
        items: [
          { value: 'On Hold', label: 'On Hold' },
          { value: 'Sold', label: 'Sold' },
        ],
      });
    } finally {
      sim.statuses = listed;
      await h.admin('/api/automations/appointment-crm', { method: 'PUT', json: { create_projects: false } });
    }
  });

  browserIt(
    'the appointment statuses ticked from the CRM’s list; a saved one it no longer lists says so; typing stays',
    async () => {
      expect((await h.admin('/api/automations/appointment-crm', { method: 'PUT', json: { statuses: ['Confirmed', 'Sold'] } })).status).toBe(200);
      const { context, page, errors } = await openConsolePage(browser, {
        url: h.url,
        token: ADMIN_TOKEN,
        hash: '/#automations',
        ready: '#auto-appointment-statuses-pick input[value="Scheduled"]',
        refusedStatuses: [401],
      });
      const box = (value: string) => page.locator(`#auto-appointment-statuses-pick input[value="${value}"]`);
      expect(await box('Confirmed').isChecked()).toBe(true);
      expect(await box('Scheduled').isChecked()).toBe(false);
      expect(await page.locator('#auto-appointment-statuses-pick label.gone').textContent()).toBe('Sold (no longer in the CRM)');
      await box('Scheduled').check();
      await box('Sold').uncheck();
      expect(await page.locator('#auto-appointment-statuses').inputValue()).toBe('Scheduled, Confirmed');
      await page.screenshot({ path: '/tmp/shots/statuses.png', fullPage: true });
      await page.click('#auto-appointment-submit');
      await page.locator('#auto-appointment-message .conn-msg.ok').waitFor();
      expect(((await (await h.admin('/api/automations')).json()) as Json).appointment_crm.statuses).toEqual(['Scheduled', 'Confirmed']);
      // Typed: a status the CRM does not list is kept, and marked.
      await page.fill('#auto-appointment-statuses', 'Scheduled, Waiting');
      await page.locator('#auto-appointment-statuses').dispatchEvent('change');
      expect(await page.locator('#auto-appointment-statuses-pick label.gone').textContent()).toBe('Waiting (no longer in the CRM)');
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );

  browserIt(
    'a Zoho field chosen offers its pick list; the choices are saved; a field Zoho no longer lists says so',
    async () => {
      expect((await h.admin('/api/automations/record-crm', { method: 'PUT', json: { module: 'Deals', field: 'Old_Rating', values: ['Hot'] } })).status).toBe(
        200,
      );
      const { context, page, errors } = await openConsolePage(browser, {
        url: h.url,
        token: ADMIN_TOKEN,
        hash: '/#automations',
        ready: '#auto-record-field-pick',
        refusedStatuses: [401],
      });
      await page.locator('#auto-record-field-pick option[value="Stage"]').waitFor({ state: 'attached' });
      // The field saved earlier, gone from Zoho: chosen still, and said to be missing.
      expect(await page.locator('#auto-record-field-pick').inputValue()).toBe('Old_Rating');
      expect(await page.locator('#auto-record-field-pick option:checked').textContent()).toBe('Old_Rating (no such field in Zoho)');
      expect(await page.locator('#auto-record-field-note').textContent()).toContain('No such field in Zoho');

      // Stage chosen by its label: its pick list offered, two ticked.
      await page.selectOption('#auto-record-field-pick', 'Stage');
      expect(await page.locator('#auto-record-field').inputValue()).toBe('Stage');
      const boxes = page.locator('#auto-record-values-pick input[type="checkbox"]');
      expect(await boxes.count()).toBeGreaterThan(3);
      await page.locator('#auto-record-values-pick input[value="Qualification"]').check();
      await page.locator('#auto-record-values-pick input[value="Needs Analysis"]').check();
      expect(await page.locator('#auto-record-values').inputValue()).toBe('Qualification, Needs Analysis');
      await page.selectOption('#auto-record-job-pick', 'Job_Number');
      await page.screenshot({ path: '/tmp/shots/pickers.png', fullPage: true });
      await page.click('#auto-record-submit');
      await page.locator('#auto-record-message .conn-msg.ok').waitFor();
      expect(((await (await h.admin('/api/automations')).json()) as Json).record_crm).toMatchObject({
        field: 'Stage',
        values: ['Qualification', 'Needs Analysis'],
        match_fields: { job_number: 'Job_Number' },
      });
      // Another module: its own fields.
      await page.selectOption('#auto-record-module', 'Leads');
      await page.locator('#auto-record-field-pick option[value="Lead_Status"]').waitFor({ state: 'attached' });
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );
});
