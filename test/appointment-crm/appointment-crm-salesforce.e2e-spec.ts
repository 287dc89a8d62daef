import { makePdf } from '../../sim/common/sim-server.js';
import { events, WebhookSender } from '../../sim/service/index.js';
import { SalesforceSim } from '../../sim/salesforce/index.js';
import { SalesforceOrgsService } from '../../src/appointment-crm/adapters/salesforce/salesforce-orgs.service.js';
import { SelectedAppointmentCrm } from '../../src/appointment-crm/selected-appointment-crm.js';
import { CandidateSearchService } from '../../src/suggestions/candidate-search.service.js';
import { allActionsFinished, deliverPrompt, settled } from '../support/appointment-crm.js';
import { readChangesNow } from '../support/automations.js';
import { browserTestOf, launchChromium, openConsolePage } from '../support/browser.js';
import { ADMIN_TOKEN, EVENTS_SECRET, fastRetries, startHarness, waitFor, type Harness } from '../support/harness.js';

const browserTest = browserTestOf('appointment-crm-salesforce.e2e-spec.ts');

type Json = Record<string, any>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

const APPOINTMENT = 'i360__Appointment__c';
const PROSPECT = 'i360__Prospect__c';
const OWNER = 'owner@example.com';

/**
 * The appointment CRM as an improveit 360 org (classic names) on the Salesforce simulator, connected from the console
 * through OAuth: names checked against the org, new appointments becoming projects, pickers and suggestions, and
 * both ways of pushing (the service's own, checked; crm-sync's, exactly once through faults).
 */
describe('the appointment CRM on Salesforce (improveit 360 classic)', () => {
  const sim = new SalesforceSim();
  let h: Harness;

  beforeAll(async () => {
    await sim.start();
    // The package has no job number (no public source shows one): this org keeps its own, picked on the screen.
    sim.schema.addField(APPOINTMENT, { name: 'Job_No__c', type: 'string', length: 40, label: 'Job No' });
    h = await startHarness({
      redisDb: 9,
      env: { AUTOMATION_POLL_SECONDS: '0', APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS: 'true', APPOINTMENT_CRM_PUSH_CHECK_SECONDS: '1' },
      tune: fastRetries,
    });
    h.service.addTemplate('Standard');
  });
  afterAll(async () => {
    await h?.close();
    await sim.stop();
  });

  const appointmentCard = async () => (await json(await h.admin('/api/connections'))).items.find((c: Json) => c.name === 'appointment_crm');

  /** The admin's consent at the simulated login host: the approve form posted, the redirect's code and state. */
  async function consent(authorizeUrl: string): Promise<URL> {
    const page = await fetch(authorizeUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    const form = html.slice(html.indexOf('authorize/approve'), html.indexOf('</form>'));
    const fields = new URLSearchParams(
      [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [
        m[1],
        m[2].replace(/&#39;/g, "'").replace(/&#32;/g, ' '),
      ]),
    );
    const decision = await fetch(`${sim.loginUrl}/services/oauth2/authorize/approve`, { method: 'POST', body: fields, redirect: 'manual' });
    expect(decision.status).toBe(302);
    return new URL(decision.headers.get('location')!);
  }

  let appointmentSeq = 0;
  /**
   * An appointment with its prospect and sales rep, as a user enters it in the org: the customer's names, e-mail and
   * phone on the Prospect, the address and the start (a date, a time of day, the computed date-time) on the appointment.
   */
  function addAppointment(customer: { first: string; last: string; email: string; phone: string }, result: string | null = null): string {
    const prospect = sim.insertRow(PROSPECT, {
      Name: `${customer.first} ${customer.last}`,
      i360__Primary_First_Name__c: customer.first,
      i360__Primary_Last_Name__c: customer.last,
      i360__Primary_Email__c: customer.email,
      i360__Phone_1__c: customer.phone,
    });
    const rep = sim.insertRow('i360__Staff__c', { Name: 'Sam Ortiz', i360__Email__c: 'sam@example.com' });
    return sim.insertRow(APPOINTMENT, {
      i360__Prospect__c: prospect,
      i360__Sales_Rep_1__c: rep,
      i360__Result__c: result,
      i360__Address__c: '1 Main St',
      i360__City__c: 'Austin',
      i360__State__c: 'TX',
      i360__Zip__c: '78701',
      // 10:00 AM in the org's time zone (America/Chicago, -6 in December).
      i360__Start__c: '2026-12-03',
      i360__Start_Time__c: '10:00 AM',
      i360__Computed_Start_DateTime__c: '2026-12-03T16:00:00.000+0000',
      Job_No__c: `J-${++appointmentSeq}`,
    });
  }

  it('connects through OAuth with PKCE and names the org and the user: the evidence-based preset gives a usable connection', async () => {
    const start = await h.admin('/api/connections/appointment-crm/salesforce', {
      method: 'PUT',
      json: { login_url: sim.loginUrl, client_id: sim.clientId, client_secret: sim.clientSecret, preset: 'improveit360-classic' },
    });
    expect(start.status).toBe(200);
    const { authorize_url, redirect_uri } = await json(start);
    expect(new URL(authorize_url).searchParams.get('code_challenge_method')).toBe('S256');
    sim.addRedirectUri(redirect_uri);
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0];
    expect(cookie).toMatch(/^crm_sync_oauth=/);

    const back = await consent(authorize_url);
    const done = await fetch(`${h.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { cookie } });
    expect(done.status).toBe(303);

    // No degraded state: the package has no job number (not named by the preset), and its start is read from the
    // computed date-time, not from the date-typed i360__Start__c.
    const card = await appointmentCard();
    expect(card).toMatchObject({ status: 'connected', settings: { kind: 'salesforce', preset: 'improveit360-classic', pushes: 'service' } });
    expect(card.detail).toContain(`org ${sim.orgId}`);
    expect(card.detail).not.toContain('missing or wrong');
    expect(JSON.stringify(card)).not.toContain(sim.clientSecret);
    const schema = await json(await h.admin('/api/connections/appointment-crm/schema'));
    const need = (name: string) => schema.needs.find((n: Json) => n.need === name);
    expect(need('appointment_start')).toMatchObject({ name: 'i360__Computed_Start_DateTime__c', status: 'ok', confirmed: true });
    expect(need('customer_email')).toMatchObject({ name: 'i360__Prospect__r.i360__Primary_Email__c', status: 'ok' });
    expect(need('customer_street')).toMatchObject({ name: 'i360__Address__c', status: 'ok' });
    expect(need('appointment_job_number')).toMatchObject({ name: '', status: 'unused' });
    expect(need('sale_total')).toMatchObject({ name: 'i360__Sold_Price__c', status: 'unused' });
  });

  it('shows the table of needs with the fitting fields of the org, refuses a name the org lacks, and takes one it has', async () => {
    const schema = await json(await h.admin('/api/connections/appointment-crm/schema'));
    const job = schema.needs.find((n: Json) => n.need === 'appointment_job_number');
    expect(job).toMatchObject({ name: '', status: 'unused' });
    expect(job.options.map((o: Json) => o.name)).toContain('Job_No__c');
    // A need that may cross lookups offers the appointment's lookups; a step's fields come from describe.
    expect(job.lookups).toContainEqual(expect.objectContaining({ relationshipName: 'i360__Prospect__r', referenceTo: PROSPECT }));
    const prospectFields = await json(await h.admin(`/api/connections/appointment-crm/fields?object=${PROSPECT}`));
    expect(prospectFields.fields).toContainEqual(expect.objectContaining({ name: 'i360__Primary_Email__c', type: 'email' }));
    expect((await h.admin('/api/connections/appointment-crm/fields?object=Nope__c')).status).toBe(404);
    expect(schema.objects.map((o: Json) => o.name)).toContain(APPOINTMENT);

    const wrong = await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: { appointment_job_number: 'Nope__c' } } });
    expect(wrong.status).toBe(422);
    expect((await json(wrong)).message).toContain('has no field Nope__c');
    expect((await appointmentCard()).settings.names).toEqual({});

    const picked = await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: { appointment_job_number: 'Job_No__c' } } });
    expect(picked.status).toBe(200);
    expect(await appointmentCard()).toMatchObject({ status: 'connected', settings: { names: { appointment_job_number: 'Job_No__c' } } });
  });

  it("turns off an optional need the org lacks ('not in this org') without degrading, and reports an unconfirmed Sale Item with its picker", async () => {
    sim.renameField(APPOINTMENT, 'i360__Zip__c', 'Postal_Code__c');
    try {
      const checked = await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: {} } });
      expect(checked.status).toBe(200);
      const zip = (await json(checked)).schema.needs.find((n: Json) => n.need === 'customer_zip');
      expect(zip).toMatchObject({ status: 'absent', detail: expect.stringContaining('not in this org') });
      expect(await appointmentCard()).toMatchObject({ status: 'connected', detail: expect.stringMatching(/not in this org \(turned off\): .*ZIP/) });
      // Left out of every query: a listing still reads the org.
      const crm = h.app.get(SelectedAppointmentCrm);
      await expect(crm.listChangedAppointments(null, null, 5)).resolves.toMatchObject({ items: expect.any(Array) });
    } finally {
      sim.renameField(APPOINTMENT, 'Postal_Code__c', 'i360__Zip__c');
    }
    // crm-sync pushing needs the Sale Item, a name no public source confirms: checked, refused with the reason.
    const saleItem = sim.schema.object('i360__Sale_Item__c')!;
    sim.schema.removeObject('i360__Sale_Item__c');
    try {
      const refused = await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { pushes: 'crm-sync' } });
      expect(refused.status).toBe(422);
      const body = await json(refused);
      expect(body.message).toContain('Sale item: the org has no object i360__Sale_Item__c');
      expect(body.message).toContain('unconfirmed');
      expect(body.schema.needs.find((n: Json) => n.need === 'sale_item')).toMatchObject({ status: 'missing', confirmed: false });
    } finally {
      sim.schema.addObject(saleItem);
    }
    expect((await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: {} } })).status).toBe(200);
  });

  it('composes the start from a date and a time of day in the org time zone when the date field is picked', async () => {
    const id = addAppointment({ first: 'Dee', last: 'Date', email: 'dee@example.com', phone: '512 555 0111' });
    const crm = h.app.get(SelectedAppointmentCrm);
    expect(await crm.getAppointment(id)).toMatchObject({ scheduled_at: '2026-12-03T16:00:00.000Z' });
    const picked = await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: { appointment_start: 'i360__Start__c' } } });
    expect(picked.status).toBe(200);
    sim.updateRow(APPOINTMENT, id, { i360__Start_Time__c: '2:30 PM' });
    expect(await crm.getAppointment(id)).toMatchObject({ scheduled_at: '2026-12-03T20:30:00.000Z', customer: { name: 'Dee Date' } });
    expect(
      (await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: { appointment_start: 'i360__Computed_Start_DateTime__c' } } }))
        .status,
    ).toBe(200);
  });

  browserTest('the Connections screen shows the Salesforce org with the table of needs, each with the org’s fitting fields', async () => {
    const browser = await launchChromium();
    try {
      const { page, errors } = await openConsolePage(browser, {
        url: h.url,
        token: ADMIN_TOKEN,
        hash: '#connections',
        ready: '#conn-appointment-crm-needs table',
        refusedStatuses: [],
      });
      expect(await page.locator('#conn-appointment-crm-kind').inputValue()).toBe('salesforce');
      expect(await page.locator('#conn-need-appointment_job_number').inputValue()).toBe('Job_No__c');
      expect(await page.locator('tr[data-need="appointment_job_number"] .badge').textContent()).toBe('found');
      const options = await page.locator('#conn-need-appointment_job_number option').allTextContents();
      expect(options).toContain('Name');
      // A path through a lookup: the Prospect's e-mail, one drop-down per step.
      expect(await page.locator('#conn-need-customer_email').inputValue()).toBe('i360__Prospect__r.');
      await page.waitForSelector('#conn-need-customer_email-1');
      expect(await page.locator('#conn-need-customer_email-1').inputValue()).toBe('i360__Primary_Email__c');
      // Picking another field of the Prospect through the picker saves the new path, checked against the org.
      await page.waitForSelector('#conn-need-customer_phone-1');
      await page.selectOption('#conn-need-customer_phone-1', 'i360__Phone_2__c');
      if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/salesforce-connections.png`, fullPage: true });
      await page.click('#conn-needs-save');
      await waitFor(async () => (await appointmentCard()).settings.names.customer_phone ?? null, 10_000, 'the picked path saved');
      expect((await appointmentCard()).settings.names.customer_phone).toBe('i360__Prospect__r.i360__Phone_2__c');
      expect(errors).toEqual([]);
      expect(
        (await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: { customer_phone: 'i360__Prospect__r.i360__Phone_1__c' } } }))
          .status,
      ).toBe(200);
    } finally {
      await browser.close();
    }
  });

  it('makes a new appointment one mapped, associated project, reading customer and sales rep in the same query', async () => {
    expect((await h.admin('/api/automations/appointment-crm', { method: 'PUT', json: { create_projects: true, owner: OWNER } })).status).toBe(200);
    const id = addAppointment({ first: 'Ana', last: "O'Ruiz", email: 'ana@example.com', phone: '(512) 555-0100' });
    const queriesBefore = sim.instance.requests.filter((r) => r.path.endsWith('/query')).length;
    await readChangesNow(h, 'appointment-crm');
    await readChangesNow(h, 'appointment-crm');

    const projects = [...h.service.projects.values()].filter((p) => p.name.includes(id));
    expect(projects).toHaveLength(1);
    expect(projects[0].name).toBe(`Ana O'Ruiz (${id})`);
    // The customer from the Prospect, the address from the appointment itself.
    expect(projects[0]).toMatchObject({
      customer: {
        name: "Ana O'Ruiz",
        email: 'ana@example.com',
        phone: '(512) 555-0100',
        address: { street: '1 Main St', city: 'Austin', state: 'TX', zip_code: '78701' },
      },
    });
    const mappings = (await json(await h.admin('/api/mappings?crm=appointment'))).items.filter((m: Json) => m.appointment_id === id);
    expect(mappings).toEqual([expect.objectContaining({ project_id: projects[0].id, status: 'associated', source: 'automation' })]);
    // Two reads: a query each (no call per appointment for its customer or rep).
    const queries = sim.instance.requests.filter((r) => r.path.endsWith('/query')).slice(queriesBefore);
    expect(queries.length).toBe(2);
    expect(decodeURIComponent(queries[0].query.get('q') ?? '')).toContain('i360__Prospect__r.i360__Primary_Email__c');
    expect(sim.instance.requests.filter((r) => new RegExp(`/sobjects/(${PROSPECT}|i360__Staff__c)/a0`).test(r.path))).toHaveLength(0);
    // The mapping's link (read in the background after a listing) opens the appointment's record page in the org.
    const link = await waitFor(
      async () => (await json(await h.admin('/api/mappings?crm=appointment'))).items.find((m: Json) => m.appointment_id === id && m.web_url)?.web_url,
      10_000,
      "the mapping's link",
    );
    expect(link).toBe(`${sim.instanceUrl}/lightning/r/${APPOINTMENT}/${id}/view`);
  });

  it('finds appointments for pickers by customer name, e-mail and phone, and for suggestions by e-mail and phone', async () => {
    const id = addAppointment({ first: 'Bea', last: 'Quill\\Smith', email: 'Bea@Quill-Smith.net', phone: '512.555.0199' });
    const picker = async (q: string) =>
      (await json(await h.admin(`/api/search/crm-records?crm=appointment&q=${encodeURIComponent(q)}`))).items.map((i: Json) => i.id);
    expect(await picker('Bea Quill\\Smith')).toContain(id);
    expect(await picker('bea@quill-smith.net')).toContain(id);
    expect(await picker('555-0199')).toContain(id);
    // A phone written with an extension after it: the LIKE pattern's trailing % and the digits compared without it.
    const withExtension = addAppointment({ first: 'Cy', last: 'Extension', email: 'cy@example.com', phone: '(512) 555-0177 ext. 42' });
    expect(await picker('512 555 0177')).toEqual([withExtension]);
    const [found] = await h.app.get(SelectedAppointmentCrm).searchAppointments({ phone: '5125550177' });
    expect(found).toMatchObject({ id: withExtension, web_url: `${sim.instanceUrl}/lightning/r/${APPOINTMENT}/${withExtension}/view` });
    expect(await picker(`Bea' OR Name != '`)).toEqual([]);

    const candidates = h.app.get(CandidateSearchService);
    const byEmail = await candidates.appointments(['email'], {
      projectId: '1',
      customerName: null,
      values: { job_number: null, email: 'bea@quill-smith.net', phone: null },
    });
    const byPhone = await candidates.appointments(['phone'], {
      projectId: '1',
      customerName: null,
      values: { job_number: null, email: null, phone: '+1 (512) 555-0199' },
    });
    expect(byEmail.map((c) => c.id)).toEqual([id]);
    expect(byPhone.map((c) => c.id)).toEqual([id]);
    expect(byEmail[0].name).toBe('Bea Quill\\Smith');
  });

  it('accepts a suggestion for a Salesforce appointment: read again, it still matches the project, and is mapped', async () => {
    expect((await h.admin('/api/automations/appointment-crm', { method: 'PUT', json: { match_on: ['email', 'phone'], auto_accept: false } })).status).toBe(200);
    const id = addAppointment({ first: 'Sue', last: 'Gest', email: 'sue.gest@gest-family.net', phone: '512 555 0155' });
    const project = h.service.addProject({ name: 'Sue, made by hand', customer: { name: 'Sue Gest', email: 'Sue.Gest@Gest-Family.net' } });
    const answer = await new WebhookSender().deliverOnce(`${h.url}/webhooks/events`, events.projectCreated(project), { secret: EVENTS_SECRET });
    expect(JSON.parse(answer.body).status).toBe('accepted');
    const suggestion = await waitFor(
      async () =>
        (await json(await h.admin('/api/suggestions?status=open&limit=500'))).items.find((x: Json) => x.project_id === project.id && x.crm === 'appointment'),
      15_000,
      'the suggestion',
    );
    expect(suggestion.candidates.map((c: Json) => c.id)).toEqual([id]);
    const accepted = await h.admin(`/api/suggestions/${suggestion.id}/accept`, { method: 'POST', json: { candidate: id } });
    expect(accepted.status).toBe(201);
    expect(await json(accepted)).toMatchObject({
      crm: 'appointment',
      appointment_id: id,
      project_id: project.id,
      source: 'suggestion',
      crm_record_name: 'Sue Gest',
    });
    await waitFor(() => h.service.appointmentAssociations.get(project.id) === id || null, 15_000, 'the association');
  });

  it("shows the org's daily API requests on the overview, as its answers' Sforce-Limit-Info says them", async () => {
    sim.setApiUsage(91_000, 100_000);
    await h.admin('/api/search/crm-records?crm=appointment&q=anyone');
    const overview = await json(await h.admin('/api/overview'));
    expect(overview.connections.appointment_crm.api_usage).toMatchObject({ max: 100_000, share: expect.any(Number) });
    expect(overview.connections.appointment_crm.api_usage.used).toBeGreaterThanOrEqual(91_000);
    sim.setApiUsage(0, 100_000);
  });

  it('sends at most 25 requests to the org at once: 40 searches held by the org all finish, none refused', async () => {
    const crm = h.app.get(SelectedAppointmentCrm);
    sim.maxInFlight = 0;
    const release = sim.holdRequests();
    const searches = Array.from({ length: 40 }, (_, i) => crm.searchAppointments({ email: `held-${i}@example.com` }));
    await waitFor(() => (sim.inFlight >= 25 ? true : null), 10_000, '25 requests in flight');
    release();
    expect((await Promise.all(searches)).every((found) => found.length === 0)).toBe(true);
    expect(sim.maxInFlight).toBe(25);
  });

  /** A project of the service mapped to a fresh appointment of the org. */
  async function mappedProject(): Promise<{ projectId: string; drawingId: string; appointmentId: string }> {
    const appointmentId = addAppointment({ first: 'Cy', last: 'Push', email: 'cy@example.com', phone: '512 555 0142' });
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const res = await h.admin('/api/mappings', { method: 'POST', json: { project_id: project.id, crm: 'appointment', appointment_id: appointmentId } });
    expect([200, 201]).toContain(res.status);
    await allActionsFinished(h);
    return { projectId: project.id, drawingId: drawing.id, appointmentId };
  }

  const writesTo = (appointmentId: string) =>
    sim.instance.requests.filter((r) => r.method !== 'GET' && (r.path.includes(appointmentId) || /ContentVersion|composite/.test(r.path)));

  it('with the service pushing: an export-prompt yes whose proposal never arrives fails a check naming the appointment; crm-sync pushes nothing', async () => {
    const { projectId, drawingId, appointmentId } = await mappedProject();
    const writesBefore = writesTo(appointmentId).length;
    await deliverPrompt(h, { project_id: projectId, drawing_id: drawingId, appointment_id: appointmentId, yes_no: true });
    const entries = await settled(h, projectId, ['check_service_push'], 20_000);
    const check = entries.find((e) => e.kind === 'check_service_push')!;
    expect(check.status).toBe('failed');
    expect(check.error).toContain(`appointment ${appointmentId}`);
    expect(check.error).toContain('the proposal file');
    expect(check.error).toContain(`${sim.instanceUrl}/lightning/r/${APPOINTMENT}/${appointmentId}/view`);
    expect(entries.filter((e) => e.kind.startsWith('push_') || e.kind === 'set_status')).toEqual([]);
    expect(writesTo(appointmentId).length).toBe(writesBefore);
    expect(sim.row(APPOINTMENT, appointmentId)!.i360__Result__c ?? null).toBeNull();
    // The failure raises the action_failed alert, its detail naming the appointment.
    const alerts = await waitFor(
      async () =>
        (await h.database.query<Json[]>(`SELECT detail, entries FROM alert WHERE kind = 'action_failed'`)).find((a) =>
          String(a.detail).includes(appointmentId),
        ) ?? null,
      10_000,
      'the alert',
    );
    expect(alerts.entries).toContain(String(check.id));
  });

  it('with the service pushing: a proposal file and Sold that arrived pass the check', async () => {
    const { projectId, drawingId, appointmentId } = await mappedProject();
    await deliverPrompt(h, { project_id: projectId, drawing_id: drawingId, appointment_id: appointmentId, yes_no: true });
    // The service's own integration pushes the proposal and sets Sold.
    sim.addFile(appointmentId, `proposal-${drawingId}.pdf`, makePdf('by the service'));
    sim.updateRow(APPOINTMENT, appointmentId, { i360__Result__c: 'Sold' });
    const entries = await settled(h, projectId, ['check_service_push'], 20_000);
    expect(entries.find((e) => e.kind === 'check_service_push')).toMatchObject({ status: 'succeeded' });
  });

  it('with the service pushing: a proposal put in the classic Attachments and Sold pass the check too', async () => {
    const { projectId, drawingId, appointmentId } = await mappedProject();
    await deliverPrompt(h, { project_id: projectId, drawing_id: drawingId, appointment_id: appointmentId, yes_no: true });
    sim.addAttachment(appointmentId, `proposal-${drawingId}.pdf`, makePdf('by the service, as an Attachment'));
    sim.updateRow(APPOINTMENT, appointmentId, { i360__Result__c: 'Sold' });
    const entries = await settled(h, projectId, ['check_service_push'], 20_000);
    expect(entries.find((e) => e.kind === 'check_service_push')).toMatchObject({ status: 'succeeded' });
    expect(sim.filesOf(appointmentId)).toEqual([]);
  });

  it('with crm-sync pushing: proposal, sale with its items and Sold arrive exactly once through faults and an expired session', async () => {
    const switched = await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { pushes: 'crm-sync' } });
    expect(switched.status).toBe(200);
    const { projectId, drawingId, appointmentId } = await mappedProject();
    sim.expireTokens();
    // The upload's answer is lost after the org stored it; the sale's first collection call meets a 503; Sold a REQUEST_LIMIT_EXCEEDED.
    sim.instance.injectFault({ method: 'POST', path: /\/sobjects\/ContentVersion$/, times: 1, afterHandling: true, dropConnection: true });
    sim.instance.injectFault({
      method: 'POST',
      path: /\/composite\/sobjects$/,
      times: 1,
      status: 503,
      body: [{ errorCode: 'SERVER_UNAVAILABLE', message: 'down' }],
    });
    sim.instance.injectFault({
      method: 'PATCH',
      path: new RegExp(`/sobjects/${APPOINTMENT}/${appointmentId}$`),
      times: 1,
      status: 403,
      body: [{ errorCode: 'REQUEST_LIMIT_EXCEEDED', message: 'TotalRequests Limit exceeded.' }],
    });
    await deliverPrompt(h, { project_id: projectId, drawing_id: drawingId, appointment_id: appointmentId, yes_no: true });
    const tokensBefore = sim.login.requestsTo('POST', '/services/oauth2/token').length;
    const entries = await settled(h, projectId, ['push_proposal_pdf', 'push_line_items', 'set_status'], 30_000);
    expect(entries.filter((e) => e.crm === 'appointment' && e.kind !== 'admin_write').map((e) => [e.kind, e.status])).toEqual([
      ['push_proposal_pdf', 'succeeded'],
      ['push_line_items', 'succeeded'],
      ['set_status', 'succeeded'],
    ]);

    const files = sim.filesOf(appointmentId);
    expect(files).toHaveLength(1);
    expect(files[0].pathOnClient).toBe(`proposal-${drawingId}.pdf`);
    const sales = sim.rows('i360__Sale__c').filter((s) => s.i360__Appointment__c === appointmentId);
    expect(sales).toHaveLength(1);
    const items = sim.rows('i360__Sale_Item__c').filter((i) => i.i360__Sale__c === sales[0].Id);
    const lineItems = h.service.drawings.get(drawingId)!.lineItems;
    expect(items).toHaveLength(lineItems.line_items.length);
    expect(items.map((i) => i.i360__Quantity__c)).toEqual(lineItems.line_items.map((i) => i.quantity));
    // The Sale's total where improveit 360 keeps it, and its date.
    expect(sales[0].i360__Sold_Price__c).toBe(lineItems.total);
    expect(sales[0].i360__Sold_On__c).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sim.row(APPOINTMENT, appointmentId)!.i360__Result__c).toBe('Sold');
    // The faults struck: the upload was sent again (its first copy deleted), the sale's call too, and a new session was taken.
    expect(sim.instance.requestsTo('POST', /\/sobjects\/ContentVersion$/).length).toBeGreaterThanOrEqual(2);
    expect(sim.login.requestsTo('POST', '/services/oauth2/token').length).toBeGreaterThan(tokensBefore);

    // A drawing push replaces the drawing files once; pushed again it converges on one file per drawing.
    await h.admin('/api/reconcile', { method: 'POST', json: { scope: 'full' } });
    await waitFor(async () => sim.filesOf(appointmentId).length === 2 || null, 20_000, 'the drawing PDF');
    await allActionsFinished(h);
    expect(
      sim
        .filesOf(appointmentId)
        .map((f) => f.pathOnClient)
        .sort(),
    ).toEqual([expect.stringMatching(/\.pdf$/), `proposal-${drawingId}.pdf`].sort());
  }, 60_000);

  browserTest('an unconfirmed name the org lacks is reported on the screen with its picker marked, the connection still usable', async () => {
    // crm-sync pushes now; the Sale Item's description (a guessed name, optional) is not in this org.
    const description = sim.schema.field('i360__Sale_Item__c', 'i360__Description__c')!;
    sim.schema.removeField('i360__Sale_Item__c', 'i360__Description__c');
    const browser = await launchChromium();
    try {
      expect((await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: {} } })).status).toBe(200);
      expect(await appointmentCard()).toMatchObject({ status: 'connected' });
      const { page, errors } = await openConsolePage(browser, {
        url: h.url,
        token: ADMIN_TOKEN,
        hash: '#connections',
        ready: '#conn-appointment-crm-needs table',
        refusedStatuses: [],
      });
      const row = page.locator('tr[data-need="sale_item_description"]');
      expect(await row.getAttribute('class')).toContain('need-open');
      expect(await row.locator('.badge').textContent()).toBe('not in this org');
      expect(await row.textContent()).toContain('unconfirmed');
      // Its picker offers the Sale Item's fields that fit, to pick the org's own.
      expect(await page.locator('#conn-need-sale_item_description option').allTextContents()).toContain('Name');
      if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/salesforce-unconfirmed.png`, fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      sim.schema.addField('i360__Sale_Item__c', description);
      await h.admin('/api/connections/appointment-crm/names', { method: 'PUT', json: { names: {} } });
    }
  });

  it('refuses a consent without API access with the reason, and keeps the connection it had', async () => {
    const before = await appointmentCard();
    const start = await h.admin('/api/connections/appointment-crm/salesforce', { method: 'PUT', json: { login_url: sim.loginUrl, client_id: sim.clientId } });
    expect(start.status).toBe(200);
    const { authorize_url } = await json(start);
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0];
    const back = await consent(authorize_url);
    sim.apiEnabled = false;
    try {
      const done = await fetch(`${h.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { cookie } });
      expect(done.status).toBe(502);
      const page = await done.text();
      expect(page).toContain('no API access');
      expect(page).toContain('API Enabled');
    } finally {
      sim.apiEnabled = true;
    }
    expect((await appointmentCard()).updated_at).toBe(before.updated_at);
  });
  it("lists the org's result pick list for the status picker: active values with their labels, from describe", async () => {
    const before = sim.schema.field(APPOINTMENT, 'i360__Result__c')!;
    sim.schema.changeField(APPOINTMENT, 'i360__Result__c', {
      picklistValues: [
        { value: 'Sold', label: 'Sold (signed)', active: true },
        { value: 'Demo No Sale', label: 'Demo, no sale', active: true },
        { value: 'Retired', label: 'Retired', active: false },
      ],
    });
    try {
      const statuses = await json(await h.admin('/api/crm-metadata/appointment-crm/statuses'));
      expect(statuses).toEqual({
        source: 'crm',
        items: [
          { value: 'Sold', label: 'Sold (signed)' },
          { value: 'Demo No Sale', label: 'Demo, no sale' },
        ],
      });
    } finally {
      sim.schema.changeField(APPOINTMENT, 'i360__Result__c', { picklistValues: before.picklistValues });
    }
  });

  it('refuses a consent whose scope lacks api with the reason, gives the grant back, and keeps the connection it had', async () => {
    const before = await appointmentCard();
    const scopes = [...sim.connectedApp.scopes];
    sim.setScopes(scopes.filter((s) => s !== 'api' && s !== 'full'));
    try {
      const start = await h.admin('/api/connections/appointment-crm/salesforce', { method: 'PUT', json: { login_url: sim.loginUrl, client_id: sim.clientId } });
      const { authorize_url } = await json(start);
      const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0];
      const back = await consent(authorize_url);
      const tokensBefore = sim.login.requestsTo('POST', '/services/oauth2/token').length;
      const revokedBefore = sim.login.requestsTo('POST', '/services/oauth2/revoke').length;
      const done = await fetch(`${h.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { cookie } });
      expect(done.status).toBe(502);
      const page = await done.text();
      expect(page).toContain('gives no API access');
      expect(page).toContain('Manage user data via APIs (api)');
      // One code exchange, no data call and no refresh after it; the refresh token it gave is revoked.
      expect(sim.login.requestsTo('POST', '/services/oauth2/token').length).toBe(tokensBefore + 1);
      expect(sim.login.requestsTo('POST', '/services/oauth2/revoke').length).toBe(revokedBefore + 1);
    } finally {
      sim.setScopes(scopes);
    }
    expect((await appointmentCard()).updated_at).toBe(before.updated_at);
  });

  it('stops at the first refresh whose token lacks the api scope, with the reason, instead of refreshing again and again', async () => {
    const orgs = h.app.get(SalesforceOrgsService);
    const adapter = orgs.build({
      kind: 'salesforce',
      loginUrl: sim.loginUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      refreshToken: sim.issueRefreshToken(['refresh_token']),
      instanceUrl: sim.instanceUrl,
      preset: 'improveit360-classic',
      names: {},
      soldValue: 'Sold',
      pushes: 'crm-sync',
    });
    const tokensBefore = sim.login.requestsTo('POST', '/services/oauth2/token').length;
    const dataBefore = sim.instance.requests.length;
    await expect(adapter.listChangedAppointments(null, null, 10)).rejects.toThrow(/lacks "api"/);
    expect(sim.login.requestsTo('POST', '/services/oauth2/token').length).toBe(tokensBefore + 1);
    expect(sim.instance.requests.length).toBe(dataBefore);
  });
});
