import type { Browser, Page } from 'playwright-core';
import { events, WebhookSender } from '../../sim/service/index.js';
import { browserTestOf, haveChromium, launchChromium, openConsolePage } from '../support/browser.js';
import { ADMIN_TOKEN, EVENTS_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;

/*
 * The console speaks in names (issue 22): the two pickers of "Add a mapping" (debounced searches, the choice shown
 * before it is confirmed), and names beside ids on the mappings, the project view, the sync log and the inbox.
 * Redis db 14. Screenshots in /tmp/shots/names-*.png.
 */
const browserIt = browserTestOf('console-names.e2e-spec');

describe('the console in names: pickers and names beside ids', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 14, appointmentCrm: true, recordCrm: true });
    if (haveChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const openConsole = () => openConsolePage(browser, { url: h.url, token: ADMIN_TOKEN, ready: '#app', refusedStatuses: [400, 401, 403, 404, 409] });
  const shot = (page: Page, name: string) => page.screenshot({ path: `/tmp/shots/names-${name}.png`, fullPage: true });

  browserIt(
    'maps an appointment and a Zoho deal to a project picked by name, then shows the names on every screen',
    async () => {
      const project = h.service.addProject({
        name: 'Alvarez kitchen remodel',
        job_number: 'J-2201',
        customer: { name: 'Maria Alvarez', email: 'maria@example.com', phone: '512-555-0199' },
      });
      h.service.addProject({ name: 'Alvarez garage' });
      const appointmentId = '90071992547409121';
      h.appointmentCrm!.addAppointment(appointmentId, {
        job_number: 'J-2201',
        customer: { name: 'Maria Alvarez', email: 'maria@example.com', phone: '512-555-0199', address: null },
      });
      const deal = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Alvarez remodel deal', Stage: 'Qualification' });

      const { context, page, errors } = await openConsole();
      const searches: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/search/')) searches.push(r.url());
      });
      await page.click('#tab-mappings');
      await page.locator('#map-add').waitFor();

      // The project, typed key by key: one search once typing pauses, not one per key.
      await page.locator('#add-project_id').pressSequentially('alvarez', { delay: 40 });
      const projectChoice = page.locator('#add-project_id-results .picker-choice', { hasText: 'Alvarez kitchen remodel' });
      await projectChoice.waitFor();
      expect(searches.filter((u) => u.includes('/api/search/projects'))).toEqual([expect.stringContaining('q=alvarez')]);
      expect(await page.locator('#add-project_id-results .picker-choice').count()).toBe(2);
      expect(await projectChoice.textContent()).toContain(project.id);
      expect(await projectChoice.textContent()).toContain('Customer: Maria Alvarez');
      await shot(page, 'project-picker');
      await projectChoice.click();
      expect(await page.inputValue('#add-project_id')).toBe('Alvarez kitchen remodel');

      // The appointment, by its customer's name.
      await page.locator('#add-appointment_id').pressSequentially('Maria', { delay: 40 });
      const appointmentChoice = page.locator('#add-appointment_id-results .picker-choice', { hasText: 'Maria Alvarez' });
      await appointmentChoice.waitFor();
      expect(await appointmentChoice.textContent()).toContain('job J-2201');
      await appointmentChoice.click();
      // What will be linked, before it is confirmed.
      const preview = page.locator('#add-preview');
      await preview.waitFor();
      const previewText = (await preview.textContent())!;
      for (const part of ['Maria Alvarez', appointmentId, 'Alvarez kitchen remodel', project.id]) expect(previewText).toContain(part);
      await shot(page, 'preview');
      await page.click('#add-submit');
      await page.locator('#add-message .inline-msg.ok').waitFor();
      const row = page.locator('#map-rows tr', { hasText: appointmentId });
      await row.waitFor();
      expect(await row.locator('td.record').textContent()).toContain('Maria Alvarez');
      expect(await row.locator('td.project').textContent()).toContain('Alvarez kitchen remodel');

      // The Zoho side: a deal picked in its module.
      await page.selectOption('#add-crm', 'record');
      await page.selectOption('#add-record_crm_module', 'Deals');
      await page.locator('#add-project_id').pressSequentially('kitchen', { delay: 30 });
      await page.locator('#add-project_id-results .picker-choice', { hasText: 'Alvarez kitchen remodel' }).click();
      await page.locator('#add-record_crm_record_id').pressSequentially('remodel', { delay: 30 });
      const dealChoice = page.locator('#add-record_crm_record_id-results .picker-choice', { hasText: 'Alvarez remodel deal' });
      await dealChoice.waitFor();
      expect(await dealChoice.textContent()).toContain(deal);
      await dealChoice.click();
      expect(await preview.textContent()).toContain(`Deals / ${deal}`);
      await page.click('#add-submit');
      await page.locator('#add-message .inline-msg.ok').waitFor();
      await page.locator('#map-rows tr', { hasText: 'Alvarez remodel deal' }).waitFor();
      await shot(page, 'mappings');
      const mappings = ((await (await h.admin(`/api/mappings?project_id=${project.id}`)).json()) as Json).items;
      expect(Object.fromEntries(mappings.map((m: Json) => [m.crm, m.crm_record_name]))).toEqual({
        appointment: 'Maria Alvarez',
        record: 'Alvarez remodel deal',
      });

      // The project view: its name and customer in the title, the records' names in its mappings.
      await page.click('#map-rows tr td.project a');
      await page.locator('#project-body h2').waitFor();
      const title = (await page.locator('#project-body h2').textContent())!;
      expect(title).toContain('Alvarez kitchen remodel');
      expect(title).toContain(project.id);
      expect(await page.locator('#project-body .project-customer').textContent()).toContain('maria@example.com');
      expect(await page.locator('#project-body').textContent()).toContain('Alvarez remodel deal');
      await shot(page, 'project');

      // The sync log and the inbox: a renamed project shows its new name after its project.updated.
      const renamed = 'Alvarez kitchen and bath';
      const answer = await new WebhookSender().deliverOnce(`${h.url}/webhooks/events`, events.projectUpdated({ ...project, name: renamed }), {
        secret: EVENTS_SECRET,
      });
      expect(answer.status).toBe(200);
      await waitFor(async () => ((await (await h.admin(`/api/projects/${project.id}`)).json()) as Json).name === renamed, 10_000, 'the new name');
      await page.click('#tab-logs');
      await page.fill('#log-project', project.id);
      await page.click('#log-apply');
      await waitFor(async () => (await page.locator('#log-rows tr.row', { hasText: renamed }).count()) > 0, 10_000, 'the renamed project in the sync log');
      await shot(page, 'sync-log');
      await page.click('#tab-inbox');
      await page.locator('#inbox-rows tr.row', { hasText: renamed }).first().waitFor();
      await shot(page, 'inbox');
      expect(errors).toEqual([]);
      await context.close();
    },
    90_000,
  );

  browserIt(
    'the Suggestions screen: several candidates, one chosen and mapped; a lone candidate dismissed',
    async () => {
      for (const [crm, body] of [
        ['appointment-crm', { match_on: ['email'] }],
        ['record-crm', { module: 'Contacts', match_on: ['email'] }],
      ] as const) {
        expect((await h.admin(`/api/automations/${crm}`, { method: 'PUT', json: body })).status).toBe(200);
      }
      const email = 'quinn.suggest@acme.com';
      h.appointmentCrm!.addAppointment('90071992547409301', { customer: { name: 'Quinn Avery', email, phone: null, address: null } });
      h.appointmentCrm!.addAppointment('90071992547409302', { customer: { name: 'Quinn Avery (spouse)', email, phone: null, address: null } });
      const contact = h.zoho!.addRecord('Contacts', undefined, { Full_Name: 'Quinn Avery', Email: email });
      const project = h.service.addProject({ name: 'Avery sunroom', customer: { name: 'Quinn Avery', email } });
      const answer = await new WebhookSender().deliverOnce(`${h.url}/webhooks/events`, events.projectCreated(project), { secret: EVENTS_SECRET });
      expect(answer.status).toBe(200);
      await waitFor(
        async () => ((await (await h.admin('/api/suggestions')).json()) as Json).items.filter((s: Json) => s.project_id === project.id).length === 2,
        15_000,
        'both suggestions',
      );

      const { context, page, errors } = await openConsole();
      await page.click('#tab-suggestions');
      const appointmentCard = page.locator('.card.suggestion', { hasText: 'in the appointment CRM' }).filter({ hasText: 'Avery sunroom' });
      await appointmentCard.waitFor();
      expect(await appointmentCard.locator('li.candidate').count()).toBe(2);
      expect(await appointmentCard.textContent()).toContain('same e-mail');
      expect(await appointmentCard.textContent()).toContain(project.id);
      await shot(page, 'suggestions');
      await appointmentCard.locator('li.candidate[data-id="90071992547409302"] input[type="radio"]').check();
      await appointmentCard.locator('button[data-action="accept"]').click();
      await appointmentCard.locator('.inline-msg.ok').waitFor();
      const [mapping] = ((await (await h.admin(`/api/mappings?project_id=${project.id}&crm=appointment`)).json()) as Json).items;
      expect(mapping).toMatchObject({ appointment_id: '90071992547409302', source: 'suggestion', crm_record_name: 'Quinn Avery (spouse)' });

      const zohoCard = page.locator('.card.suggestion', { hasText: 'in Zoho CRM' }).filter({ hasText: 'Avery sunroom' });
      expect(await zohoCard.textContent()).toContain(`Contacts / ${contact}`);
      await zohoCard.locator('button[data-action="dismiss"]').click();
      await zohoCard.locator('.confirm').waitFor();
      await shot(page, 'suggestions-dismiss');
      await zohoCard.locator('button[data-confirm="ok"]').click();
      await waitFor(async () => (await page.locator('.card.suggestion', { hasText: 'Avery sunroom' }).count()) === 0, 10_000, 'both cards gone');
      await page.selectOption('#suggestions-status', 'accepted');
      await page.locator('.card.suggestion', { hasText: 'Avery sunroom' }).waitFor();
      await shot(page, 'suggestions-accepted');
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );
});
