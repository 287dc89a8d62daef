import type { Browser, Locator } from 'playwright-core';
import { browserTestOf, haveChromium, launchChromium, openConsolePage } from '../support/browser.js';
import { DEFAULT_DEAL_STAGES, STANDARD_LAYOUT, type PipelineStage } from '../../sim/zoho/revenue.js';
import { ADMIN_TOKEN, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;

/*
 * The Automations screen's Zoho pickers in a browser (GET /api/crm-metadata/record-crm/…): the module by the org's
 * label, the qualifying field chosen from the module's fields, its pick list offered as checkboxes (the Deals' Stage
 * grouped by pipeline), the job-number field chosen; a field or stage saved earlier that Zoho no longer lists is shown
 * as such. The appointment statuses (GET /api/crm-metadata/appointment-crm/statuses) ticked from the CRM's
 * `GET /statuses`, or from the statuses the reads have seen when the CRM answers 404. Admins only: a viewer is refused
 * the routes and shown no picker. Screenshots in /tmp/shots/pickers.png and /tmp/shots/statuses.png.
 */
const browserIt = browserTestOf('console-pickers.e2e-spec');
const attrs = async (l: Locator, name: string) => Promise.all((await l.all()).map((one) => one.getAttribute(name)));
const VIEWER_TOKEN = 'viewer-token-pickers-0123456789';
/** A second Deals layout with a pipeline of custom stages, custom open ones after the closed ones (pipeline.yaml's example). */
const INSTALLS_LAYOUT = '4150868000000091999';
const DOWNGRADED_LAYOUT = '4150868000000091997';
const HIDDEN_LAYOUT = '4150868000000091998';
const INSTALL_STAGES: PipelineStage[] = [
  { value: 'Site Visit', forecast: 'Open' },
  { value: 'Signed', forecast: 'Open' },
  { value: 'Won Install', forecast: 'Closed Won' },
  { value: 'Closed Lost', forecast: 'Closed Lost' },
  { value: 'Scheduled', forecast: 'Open' },
];

describe('the Automations screen: Zoho settings chosen, not typed', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({
      redisDb: 10,
      recordCrm: true,
      appointmentCrm: true,
      env: { AUTOMATION_POLL_SECONDS: '0', ADMIN_TOKENS: `vicky:viewer:${VIEWER_TOKEN}` },
    });
    // The org as an admin set it up in Zoho: Deals renamed, no Contacts, a second layout with its own pipeline.
    const zoho = h.zoho!.revenue;
    zoho.modules.set('Deals', { label: 'Opportunities', apiSupported: true });
    zoho.modules.delete('Contacts');
    zoho.layouts.set(INSTALLS_LAYOUT, { name: 'Installs', pipelines: [] });
    zoho.addPipeline('Installs', INSTALL_STAGES, INSTALLS_LAYOUT);
    // Layouts nobody can use (getLayouts answers them too): one downgraded with the edition, one hidden from users.
    zoho.layouts.set(DOWNGRADED_LAYOUT, { name: 'Old edition', pipelines: [], status: 'downgraded' });
    zoho.addPipeline('Old edition', INSTALL_STAGES, DOWNGRADED_LAYOUT);
    zoho.layouts.set(HIDDEN_LAYOUT, { name: 'Hidden', pipelines: [], visible: false });
    zoho.addPipeline('Hidden', INSTALL_STAGES, HIDDEN_LAYOUT);
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
    // The four modules crm-sync automates, by the org's labels; one the org lacks is said to be missing.
    expect(((await (await h.admin('/api/crm-metadata/record-crm/modules')).json()) as Json).items).toEqual([
      { api_name: 'Deals', label: 'Opportunities', in_org: true },
      { api_name: 'Quotes', label: 'Quotes', in_org: true },
      { api_name: 'Leads', label: 'Leads', in_org: true },
      { api_name: 'Contacts', label: 'Contacts', in_org: false },
    ]);
  });

  it('lists the Deals’ pipelines of every layout, each with its stages in order and what they forecast', async () => {
    // A connection made before the layouts were read: Zoho refuses, and the answer names the scope to grant.
    const mismatch = { code: 'OAUTH_SCOPE_MISMATCH', details: {}, message: 'invalid oauth scope to access this URL', status: 'error' };
    h.zoho!.api.injectFault({ method: 'GET', path: '/crm/v8/settings/layouts', times: 1, status: 401, body: mismatch });
    const refused = await h.admin('/api/crm-metadata/record-crm/pipelines');
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as Json).message).toContain('reconnect to grant: ZohoCRM.settings.layouts.READ');

    const res = await h.admin('/api/crm-metadata/record-crm/pipelines');
    expect(res.status).toBe(200);
    const stagesOf = (stages: PipelineStage[]) => stages.map((st, i) => ({ value: st.value, sequence: i + 1, forecast_type: st.forecast }));
    expect(((await res.json()) as Json).items).toEqual([
      { layout: { id: STANDARD_LAYOUT.id, name: STANDARD_LAYOUT.name }, name: 'Standard', default: true, stages: stagesOf(DEFAULT_DEAL_STAGES) },
      { layout: { id: INSTALLS_LAYOUT, name: 'Installs' }, name: 'Installs', default: true, stages: stagesOf(INSTALL_STAGES) },
    ]);
    // Each usable layout's pipelines were asked by its id; the downgraded and the hidden one's never.
    const asked = h.zoho!.api.requests.filter((r) => r.path === '/crm/v8/settings/pipeline').map((r) => r.query.get('layout_id'));
    expect(asked).toEqual([STANDARD_LAYOUT.id, INSTALLS_LAYOUT]);
  });

  it('the pickers’ routes are for admins: a viewer is refused, naming the role', async () => {
    for (const path of ['record-crm/pipelines', 'record-crm/modules', 'record-crm/fields?module=Deals', 'appointment-crm/statuses']) {
      const res = await fetch(`${h.url}/api/crm-metadata/${path}`, { headers: { authorization: `Bearer ${VIEWER_TOKEN}` } });
      expect([path, res.status, ((await res.json()) as Json).required_role]).toEqual([path, 403, 'admin']);
    }
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
    'Zoho’s pipelines not readable: the Stage’s pick list offered flat, saying why; the revenue stages stay typed',
    async () => {
      expect((await h.admin('/api/automations/record-crm', { method: 'PUT', json: { module: 'Deals', field: 'Stage', values: ['Signed'] } })).status).toBe(200);
      const { context, page, errors } = await openConsolePage(browser, {
        url: h.url,
        token: ADMIN_TOKEN,
        hash: '/#automations',
        ready: '#auto-record-field-pick',
        refusedStatuses: [401, 502],
      });
      const message = 'reconnect to grant: ZohoCRM.settings.layouts.READ (Zoho refused GET /settings/layouts with OAUTH_SCOPE_MISMATCH)';
      // The daemon's answer when Zoho refuses the layouts (the route's own test above); the CRM is not asked again here.
      await page.route('**/api/crm-metadata/record-crm/pipelines', (route) =>
        route.fulfill({ status: 502, contentType: 'application/json', body: JSON.stringify({ statusCode: 502, message, error: 'Bad Gateway' }) }),
      );
      await page.reload();
      // The console's session outlives the reload.
      await page.locator('#auto-record-field-pick').waitFor();
      await waitFor(async () => ((await page.locator('#auto-record-values-note').textContent()) ?? '') !== '', 10_000, 'the note on the pipelines');
      expect(await page.locator('#auto-record-values-note').textContent()).toBe(
        `Zoho’s pipelines could not be read (${message}): all stages are listed together.`,
      );
      expect(await page.locator('#auto-record-values-pick [data-group]').count()).toBe(0);
      expect(await page.locator('#auto-record-values-pick input[value="Signed"]').isChecked()).toBe(true);
      expect(await page.locator('#auto-record-values-pick input[value="Qualification"]').count()).toBe(1);
      expect(await page.locator('#auto-record-deal_stage_on_approved-pick').isHidden()).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );

  browserIt(
    'a Zoho field chosen offers its pick list; the choices are saved; a field Zoho no longer lists says so',
    async () => {
      const earlier = { module: 'Deals', field: 'Old_Rating', values: ['Hot'], deal_stage_on_lost: 'Dead Stage' };
      expect((await h.admin('/api/automations/record-crm', { method: 'PUT', json: earlier })).status).toBe(200);
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

      // The modules by the org's labels, API name beside; the one the org lacks marked and not to be chosen.
      const moduleOption = (m: string) => page.locator(`#auto-record-module option[value="${m}"]`);
      await waitFor(async () => (await moduleOption('Deals').textContent()) === 'Opportunities (Deals)', 10_000, 'the modules labelled');
      expect(await moduleOption('Contacts').textContent()).toBe('Contacts (Contacts) · not in this Zoho org');
      expect(await moduleOption('Contacts').isDisabled()).toBe(true);
      expect(await moduleOption('Leads').isDisabled()).toBe(false);

      // Stage chosen by its label: its values offered by pipeline, each pipeline's stages in its order.
      await page.selectOption('#auto-record-field-pick', 'Stage');
      expect(await page.locator('#auto-record-field').inputValue()).toBe('Stage');
      const group = (name: string) => page.locator(`#auto-record-values-pick [data-group="${name}"]`);
      await group('Installs (Installs layout)').waitFor();
      const groups = page.locator('#auto-record-values-pick [data-group]');
      expect(await attrs(groups, 'data-group')).toEqual(['Standard (Standard layout)', 'Installs (Installs layout)']);
      const valuesIn = (name: string) => attrs(group(name).locator('input[type="checkbox"]'), 'value');
      expect(await valuesIn('Standard (Standard layout)')).toEqual(DEFAULT_DEAL_STAGES.map((st) => st.value));
      expect(await valuesIn('Installs (Installs layout)')).toEqual(INSTALL_STAGES.map((st) => st.value));
      // A stage of both pipelines is one value: ticked in one, ticked in both, saved once.
      await group('Installs (Installs layout)').locator('input[value="Closed Lost"]').check();
      expect(await group('Standard (Standard layout)').locator('input[value="Closed Lost"]').isChecked()).toBe(true);
      expect(await page.locator('#auto-record-values').inputValue()).toBe('Closed Lost');
      // A stage saved earlier that no pipeline has any more: ticked still, and said to be gone.
      await page.fill('#auto-record-values', 'Retired Stage');
      await page.locator('#auto-record-values').dispatchEvent('change');
      expect(await page.locator('#auto-record-values-pick label.gone').textContent()).toBe('Retired Stage (no longer in Zoho)');
      await page.fill('#auto-record-values', '');
      await page.locator('#auto-record-values').dispatchEvent('change');
      const boxes = page.locator('#auto-record-values-pick input[type="checkbox"]');
      expect(await boxes.count()).toBe(DEFAULT_DEAL_STAGES.length + INSTALL_STAGES.length);
      await page.locator('#auto-record-values-pick input[value="Qualification"]').check();
      await page.locator('#auto-record-values-pick input[value="Needs Analysis"]').check();
      expect(await page.locator('#auto-record-values').inputValue()).toBe('Qualification, Needs Analysis');
      await page.selectOption('#auto-record-job-pick', 'Job_Number');
      // The revenue's stages chosen from the pipelines' stages, a group per pipeline; one no pipeline has says so.
      const approvedPick = '#auto-record-deal_stage_on_approved-pick';
      await page.locator(`${approvedPick} optgroup`).first().waitFor({ state: 'attached' });
      expect(await attrs(page.locator(`${approvedPick} optgroup`), 'label')).toEqual(['Standard (Standard layout)', 'Installs (Installs layout)']);
      expect(await page.locator('#auto-record-deal_stage_on_lost-pick option:checked').textContent()).toBe('Dead Stage (no such stage in Zoho)');
      expect(await page.locator('#auto-record-deal_stage_on_lost-note').textContent()).toBe('No pipeline in Zoho has this stage.');
      await page.selectOption(approvedPick, 'Won Install');
      expect(await page.locator('#auto-record-deal_stage_on_approved').inputValue()).toBe('Won Install');
      await page.selectOption('#auto-record-deal_stage_on_lost-pick', 'Closed Lost');
      expect(await page.locator('#auto-record-deal_stage_on_lost-note').textContent()).toBe('');
      await page.screenshot({ path: '/tmp/shots/pickers.png', fullPage: true });
      await page.click('#auto-record-submit');
      await page.locator('#auto-record-message .conn-msg.ok').waitFor();
      expect(((await (await h.admin('/api/automations')).json()) as Json).record_crm).toMatchObject({
        field: 'Stage',
        values: ['Qualification', 'Needs Analysis'],
        match_fields: { job_number: 'Job_Number' },
        deal_stage_on_approved: 'Won Install',
        deal_stage_on_lost: 'Closed Lost',
      });
      // Another module: its own fields, and its field's pick list.
      await page.selectOption('#auto-record-module', 'Leads');
      await page.locator('#auto-record-field-pick option[value="Lead_Status"]').waitFor({ state: 'attached' });
      await page.selectOption('#auto-record-field-pick', 'Lead_Status');
      await page.locator('#auto-record-values-pick input[value="Contacted"]').waitFor();
      expect(await page.locator('#auto-record-values-pick [data-group]').count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();

      // A viewer sees the saved settings as they are, without the admin's pickers (nor a refused call).
      const viewer = await openConsolePage(browser, {
        url: h.url,
        token: VIEWER_TOKEN,
        hash: '/#automations',
        ready: '#auto-record-field',
        refusedStatuses: [],
      });
      expect(await viewer.page.locator('#auto-record-field').inputValue()).toBe('Stage');
      expect(await viewer.page.locator('#auto-record-field').isDisabled()).toBe(true);
      expect(await viewer.page.locator('#auto-record-field-pick, #auto-record-values-pick, #auto-appointment-statuses-pick').count()).toBe(0);
      expect(viewer.errors).toEqual([]);
      await viewer.context.close();
    },
    60_000,
  );
});
