import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { AutomationPollRepository } from '../../src/automations/automation-poll.repository.js';
import { browserTestOf, haveChromium, launchChromium, openConsolePage } from '../support/browser.js';
import { readChangesNow } from '../support/automations.js';
import { ADMIN_TOKEN, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;

/*
 * The Automations screen in a browser: each CRM's card with its last read, how far and its last error; the settings
 * saved from the form, a refusal (422) shown beside each field it names; Check now; what a viewer sees. Redis db 14
 * (each harness has a queue prefix of its own). Each step leaves a screenshot in /tmp/shots/automations-*.png.
 */
const VIEWER_TOKEN = 'viewer-token-0123456789abcdef';
const browserIt = browserTestOf('console-automations.e2e-spec');
/** A Zoho Product id beyond 2^53: it must reach the settings digit for digit. */
const FALLBACK_PRODUCT = '4150868000004357001';

describe('the Automations screen in a browser', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync('/tmp/shots', { recursive: true });
    // Reads only when asked (Check now, POST .../run): the test says when.
    h = await startHarness({
      redisDb: 14,
      appointmentCrm: true,
      recordCrm: true,
      env: { ADMIN_TOKENS: `viewer1:viewer:${VIEWER_TOKEN}`, AUTOMATION_POLL_SECONDS: '0' },
    });
    if (haveChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const openConsole = (token = ADMIN_TOKEN) =>
    openConsolePage(browser, { url: h.url, token, hash: '/#automations', ready: '#automations-cards', refusedStatuses: [401, 403, 404, 422] });

  async function shot(page: Page, name: string) {
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `/tmp/shots/automations-${name}.png`, fullPage: true });
  }
  const automations = async (): Promise<Json> => (await h.admin('/api/automations')).json();
  const text = async (page: Page, selector: string) => (await page.locator(selector).textContent()) ?? '';

  browserIt(
    'shows each CRM’s reading, saves the settings, names each refused field beside it, and checks now',
    async () => {
      // A read of each CRM as the poller leaves it: the appointment CRM's went through, Zoho's failed.
      const polls = h.app.get(AutomationPollRepository);
      await polls.restartAt('appointment', '2026-11-24T10:02:11.000Z');
      await polls.finishRun('appointment', '1', null);
      await polls.finishRun('record', '2', 'Zoho CRM answered 401 INVALID_TOKEN: re-authorise crm-sync');

      const { context, page, errors } = await openConsole();
      expect(await text(page, '#auto-appointment-status')).toBe('off');
      expect(await text(page, '#auto-appointment-last-run')).not.toBe('never');
      expect(await text(page, '#auto-appointment-cursor')).toContain('changes up to 2026-11-24');
      expect(await text(page, '#auto-appointment-last-error')).toBe('none');
      expect(await text(page, '#auto-record-last-error')).toContain('401 INVALID_TOKEN');
      // No PUBLIC_URL here: Zoho cannot notify, and the card says what is missing.
      expect(await text(page, '#auto-record-notifications')).toMatch(/^polling: notifications need PUBLIC_URL/);
      expect(await page.locator('#auto-appointment-run').isDisabled()).toBe(true);
      await shot(page, 'off');

      // Creation on, no owner: the 422 beside the owner, nothing saved.
      await page.check('#auto-appointment-create_projects');
      await page.fill('#auto-appointment-statuses', 'Scheduled, Confirmed, Scheduled');
      await page.click('#auto-appointment-submit');
      await page.locator('#auto-appointment-owner-error').filter({ hasText: 'default project owner' }).waitFor();
      expect(await page.locator('#auto-appointment-owner').getAttribute('aria-invalid')).toBe('true');
      expect(await text(page, '#auto-appointment-message')).toContain('check the fields marked in red');
      expect((await automations()).appointment_crm.create_projects).toBe(false);

      // Zoho: two bad fields at once, each named beside its own input.
      await page.fill('#auto-record-field', 'Stage name!');
      await page.fill('#auto-record-fallback_product_id', 'PROD-7');
      await page.click('#auto-record-submit');
      await page.locator('#auto-record-field-error').filter({ hasText: 'API name' }).waitFor();
      expect(await text(page, '#auto-record-fallback_product_id-error')).toContain('digits only');
      expect(await page.locator('#auto-record-fallback_product_id').getAttribute('aria-invalid')).toBe('true');
      await shot(page, 'refused');

      // Put right: saved, the card says creation is on and what qualifies.
      await page.fill('#auto-appointment-owner', 'owner@example.com');
      await page.check('#auto-appointment-owner_from_sales_rep');
      await page.click('#auto-appointment-submit');
      await page.locator('#auto-appointment-message .conn-msg.ok').waitFor();
      expect(await text(page, '#auto-appointment-status')).toBe('creating projects');
      expect(await text(page, '#auto-appointment-card')).toContain('appointments with status Scheduled, Confirmed');
      expect((await automations()).appointment_crm).toMatchObject({
        create_projects: true,
        statuses: ['Scheduled', 'Confirmed'],
        owner: 'owner@example.com',
        owner_from_sales_rep: true,
        updated_by: 'admin',
      });

      await page.selectOption('#auto-record-module', 'Deals');
      await page.fill('#auto-record-field', 'Stage');
      await page.fill('#auto-record-values', 'Qualification, Needs Analysis');
      await page.fill('#auto-record-owner', 'estimator@example.com');
      await page.check('#auto-record-match_on input[value="email"]');
      await page.fill('#auto-record-match_fields\\.job_number', 'Job_Number');
      await page.fill('#auto-record-deal_stage_on_lost', 'Closed Lost');
      await page.check('#auto-record-quote_line_items');
      await page.fill('#auto-record-fallback_product_id', FALLBACK_PRODUCT);
      await page.click('#auto-record-submit');
      await page.locator('#auto-record-message .conn-msg.ok').waitFor();
      expect((await automations()).record_crm).toMatchObject({
        create_projects: false,
        module: 'Deals',
        field: 'Stage',
        values: ['Qualification', 'Needs Analysis'],
        owner: 'estimator@example.com',
        match_on: ['email'],
        match_fields: { job_number: 'Job_Number' },
        deal_stage_on_approved: 'Closed Won',
        deal_stage_on_lost: 'Closed Lost',
        quote_line_items: true,
        fallback_product_id: FALLBACK_PRODUCT,
      });
      expect(await text(page, '#auto-record-card')).toContain('Deals whose Stage is Qualification or Needs Analysis');
      // A field emptied is saved as none.
      await page.fill('#auto-record-deal_stage_on_lost', '');
      await page.click('#auto-record-submit');
      await page.locator('#auto-record-message .conn-msg.ok').waitFor();
      expect((await automations()).record_crm.deal_stage_on_lost).toBeNull();

      // Which of the org's automations crm-sync's Zoho writes fire: all three by default (as Zoho without `trigger`);
      // every box emptied, then approvals alone ticked, is what is saved.
      const triggerBox = (name: string) => page.locator(`#auto-record-trigger input[value="${name}"]`);
      for (const name of ['workflow', 'approval', 'blueprint']) expect(await triggerBox(name).isChecked()).toBe(true);
      for (const name of ['workflow', 'approval', 'blueprint']) await triggerBox(name).uncheck();
      await triggerBox('approval').check();
      await page.click('#auto-record-submit');
      await page.locator('#auto-record-message .conn-msg.ok').waitFor();
      expect((await automations()).record_crm.trigger).toEqual(['approval']);

      // The fallback product picked by search (Zoho's Products search by word): part of its name, then its code.
      h.zoho!.revenue.addProduct('Chain link panel', 'CL-6');
      const labour = h.zoho!.revenue.addProduct('Installation labour', 'SVC-LAB');
      await page.fill('#auto-record-fallback_product_id', '');
      await page.locator('#auto-record-fallback_product_id').pressSequentially('labo');
      const choice = page.locator(`#auto-record-fallback_product_id-results .picker-choice[data-id="${labour}"]`);
      await choice.waitFor();
      expect(await text(page, '#auto-record-fallback_product_id-results')).toContain('code SVC-LAB');
      expect(await page.locator('#auto-record-fallback_product_id-results .picker-choice').count()).toBe(1);
      await shot(page, 'product-picker');
      await choice.click();
      expect(await page.locator('#auto-record-fallback_product_id').inputValue()).toBe('Installation labour');
      await page.click('#auto-record-submit');
      await page.locator('#auto-record-message .conn-msg.ok').waitFor();
      expect((await automations()).record_crm.fallback_product_id).toBe(labour);
      const searches = h.zoho!.api.requestsTo('GET', '/crm/v8/Products/search');
      expect(searches.length).toBeGreaterThanOrEqual(1);
      expect(searches.at(-1)!.query.get('word')).toBe('labo');
      // By its code too; and an id pasted still goes as it is.
      await page.fill('#auto-record-fallback_product_id', '');
      await page.locator('#auto-record-fallback_product_id').pressSequentially('cl-6');
      await page.locator('#auto-record-fallback_product_id-results .picker-choice').filter({ hasText: 'Chain link panel' }).waitFor();
      await page.fill('#auto-record-fallback_product_id', FALLBACK_PRODUCT);
      await page.click('#auto-record-submit');
      await page.locator('#auto-record-message .conn-msg.ok').waitFor();
      expect((await automations()).record_crm.fallback_product_id).toBe(FALLBACK_PRODUCT);

      // Reading history on purpose: a time in the future is refused beside its field, a past one saved exactly.
      await page.fill('#auto-appointment-start_from', '2099-01-01T00:00');
      await page.click('#auto-appointment-submit');
      await page.locator('#auto-appointment-start_from-error').filter({ hasText: 'in the past' }).waitFor();
      await page.fill('#auto-appointment-start_from', '2026-11-01T08:00');
      await page.click('#auto-appointment-submit');
      await page.locator('#auto-appointment-message .conn-msg.ok').waitFor();
      expect((await automations()).appointment_crm.start_from).toBe('2026-11-01T08:00:00.000Z');
      // Saved again untouched, the stored time goes back as it was.
      await page.click('#auto-appointment-submit');
      await page.locator('#auto-appointment-message .conn-msg.ok').waitFor();
      expect((await automations()).appointment_crm.start_from).toBe('2026-11-01T08:00:00.000Z');

      // Check now: a read of the appointment CRM's changes, its sync log entry linked.
      await page.click('#auto-appointment-run');
      const said = page.locator('#auto-appointment-run + .inline-msg');
      await said.waitFor();
      await said.locator('a[href^="#logs/"]').waitFor();
      expect(await said.textContent()).toContain('Reading new and changed appointments now');
      await waitFor(async () => (await text(page, '#auto-appointment-last-run')) !== '', 5_000, 'the state drawn again');
      await shot(page, 'saved');
      expect(errors).toEqual([]);
      await context.close();

      // A viewer sees the settings and the reading, changes nothing.
      const viewer = await openConsole(VIEWER_TOKEN);
      expect(await viewer.page.locator('#auto-appointment-owner').isDisabled()).toBe(true);
      expect(await viewer.page.locator('#auto-appointment-submit').count()).toBe(0);
      expect(await viewer.page.locator('#auto-appointment-run').isVisible()).toBe(false);
      expect(await viewer.page.locator('#auto-appointment-owner').inputValue()).toBe('owner@example.com');
      expect(await text(viewer.page, '#auto-appointment-form')).toContain('Only an admin can change these settings');
      await shot(viewer.page, 'viewer');
      expect(viewer.errors).toEqual([]);
      await viewer.context.close();
    },
    90_000,
  );

  const readNow = async (): Promise<void> => void (await readChangesNow(h, 'appointment-crm'));

  browserIt(
    'a created project says where it came from, the overview counts it, and a failed creation’s alert names the record',
    async () => {
      const put = (body: Json) => h.admin('/api/automations/appointment-crm', { method: 'PUT', json: body });
      expect((await put({ create_projects: true, statuses: [], owner: 'owner@example.com', owner_from_sales_rep: false })).status).toBe(200);
      const appointmentId = 'APT-1001';
      h.appointmentCrm!.addAppointment(appointmentId, { status: 'Scheduled', customer: { name: 'Jane Roe', email: 'jane@example.com' } } as never);
      await readNow();
      const mapping = ((await (await h.admin('/api/mappings?crm=appointment')).json()) as Json).items.find((m: Json) => m.appointment_id === appointmentId);
      expect(mapping).toMatchObject({ source: 'automation' });
      const project = h.service.projects.get(mapping.project_id)!;
      expect(project.name).toContain(appointmentId);

      // A creation the service refuses for good (an owner it does not know): its alert names the appointment.
      expect((await put({ owner: 'nobody@example.com' })).status).toBe(200);
      const refusedId = 'APT-1002';
      h.appointmentCrm!.addAppointment(refusedId, { status: 'Scheduled', customer: { name: 'Ann Other' } } as never);
      await readNow();
      const [failed] = await h.database.query<Json[]>(`SELECT id::text, status FROM sync_log WHERE kind = 'create_project' AND target = $1`, [refusedId]);
      expect(failed.status).toBe('failed');
      const alert = await waitFor(
        async () => ((await (await h.admin('/api/alerts')).json()) as Json).items.find((a: Json) => a.kind === 'action_failed' && a.text) ?? null,
        15_000,
        'the alert',
      );
      expect(alert.text).toContain(`#${failed.id} create_project: no project created for appointment ${refusedId} ("Ann Other (${refusedId})")`);

      const { context, page, errors } = await openConsole();
      // The overview counts the project created, and the failed creation.
      await page.click('#tab-overview');
      const created = page.locator('#overview-projects-created');
      await created.waitFor();
      expect(await created.locator('.stat-value').textContent()).toBe('1');
      expect(await created.locator('.stat-sub').textContent()).toBe('1 from appointments · 0 from Zoho · 1 failed');
      await shot(page, 'overview');

      // The project's view: where it came from, when.
      await page.evaluate(`location.hash = '#project/${mapping.project_id}'`);
      const origin = page.locator('#project-origin');
      await origin.waitFor();
      const minute = new Date(mapping.created_at).toISOString().slice(0, 16).replace('T', ' ');
      expect(await origin.textContent()).toContain(`Created from appointment ${appointmentId} (Jane Roe), ${minute}, by the appointment CRM automation.`);
      const [creation] = await h.database.query<Json[]>(`SELECT id::text FROM sync_log WHERE kind = 'create_project' AND target = $1`, [appointmentId]);
      expect(await origin.locator('a').getAttribute('href')).toBe(`#logs/${creation.id}`);
      await shot(page, 'project');
      expect(errors).toEqual([]);
      await context.close();
    },
    90_000,
  );
});
