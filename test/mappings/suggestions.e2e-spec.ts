import { events, recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { EVENTS_SECRET, RECORD_PROMPT_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();

describe('suggested mappings', () => {
  let h: Harness;
  let seq = 0;
  const sender = new WebhookSender();
  beforeAll(async () => {
    h = await startHarness({ redisDb: 9, appointmentCrm: true, recordCrm: true });
  });
  afterAll(() => h.close());

  const settings = async (crm: 'appointment-crm' | 'record-crm', body: Json) => {
    const res = await h.admin(`/api/automations/${crm}`, { method: 'PUT', json: body });
    expect(res.status).toBe(200);
  };
  const deliver = async (body: unknown) => {
    const answer = await sender.deliverOnce(`${h.url}/webhooks/events`, body as never, { secret: EVENTS_SECRET });
    expect(JSON.parse(answer.body).status).toBe('accepted');
  };
  const suggestions = async (status = 'open'): Promise<Json[]> => (await json(await h.admin(`/api/suggestions?status=${status}&limit=500`))).items;
  const suggestionOf = (projectId: string, crm: string, status = 'open') =>
    waitFor(
      async () => (await suggestions(status)).find((s) => s.project_id === projectId && s.crm === crm),
      15_000,
      `a ${status} ${crm} suggestion of ${projectId}`,
    );
  const entriesOf = async (projectId: string, kind: string): Promise<Json[]> =>
    (await json(await h.admin(`/api/sync-logs?project_id=${projectId}&kind=${kind}`))).items;
  /** Waits until every suggest_mapping entry of the project finished. */
  const looked = (projectId: string, n = 1) =>
    waitFor(
      async () => {
        const entries = await entriesOf(projectId, 'suggest_mapping');
        return entries.length >= n && entries.every((e) => ['succeeded', 'skipped', 'failed'].includes(e.status)) ? entries : null;
      },
      15_000,
      `${n} look(s) for project ${projectId}`,
    );
  const searchesFor = (param: string, value: string) => h.appointmentCrm!.requestsTo('GET', '/appointments').filter((r) => r.query.get(param) === value).length;
  const newProject = (fields: Json = {}) => h.service.addProject({ name: `Suggest ${++seq}`, ...fields });
  const appointment = (id: string, fields: Json) => h.appointmentCrm!.addAppointment(id, fields);

  beforeAll(async () => {
    await settings('appointment-crm', { match_on: ['job_number', 'email', 'phone'], auto_accept: false });
    await settings('record-crm', { module: 'Contacts', match_on: ['email', 'phone'], auto_accept: false });
  });

  it('suggests the appointment with the same job number, names both sides, and looks once for the same fields', async () => {
    appointment('70000000000000001', { job_number: 'JOB-1001', customer: { name: 'Ana Ruiz', email: null, phone: null, address: null } });
    const project = newProject({ job_number: 'JOB-1001' });
    await deliver(events.projectCreated(project));
    const s = await suggestionOf(project.id, 'appointment');
    expect(s).toMatchObject({
      project_id: project.id,
      project_name: project.name,
      status: 'open',
      candidates: [{ id: '70000000000000001', module: null, name: 'Ana Ruiz', matched_on: ['job_number'], shared_on: [], names_alike: false, strong: true }],
    });
    await looked(project.id);
    expect(searchesFor('job_number', 'JOB-1001')).toBe(1);
    // The same fields again (a rename): no second search.
    await deliver(events.projectUpdated({ ...project, name: `${project.name} renamed` }));
    await waitFor(async () => (await json(await h.admin(`/api/deliveries?project_id=${project.id}&status=routed`))).items.length === 2, 10_000, 'routed');
    expect(await entriesOf(project.id, 'suggest_mapping')).toHaveLength(1);
    expect(searchesFor('job_number', 'JOB-1001')).toBe(1);
  });

  it("matches a phone on its last 10 digits, and a Zoho Contact on the customer's e-mail", async () => {
    appointment('70000000000000002', { customer: { name: 'Bo Lee', email: null, phone: '512.555.0142', address: null } });
    const contact = h.zoho!.addRecord('Contacts', undefined, { Full_Name: 'Cy Park', Email: 'CY.PARK@parkhome.net' });
    const project = newProject({ customer: { name: 'Cy Park', email: 'cy.park@parkhome.net', phone: '+1 (512) 555-0142' } });
    await deliver(events.projectCreated(project));
    const byPhone = await suggestionOf(project.id, 'appointment');
    expect(byPhone.candidates).toEqual([
      { id: '70000000000000002', module: null, name: 'Bo Lee', matched_on: ['phone'], shared_on: [], names_alike: false, strong: false, web_url: null },
    ]);
    const byEmail = await suggestionOf(project.id, 'record');
    expect(byEmail.candidates).toEqual([
      {
        id: contact,
        module: 'Contacts',
        name: 'Cy Park',
        matched_on: ['email'],
        shared_on: [],
        names_alike: true,
        strong: false,
        web_url: `${h.zoho!.apiDomain}/crm/org12345/tab/Contacts/${contact}`,
      },
    ]);
    const zohoSearch = h.zoho!.api.requestsTo('GET', '/crm/v8/Contacts/search').map((r) => Object.fromEntries(r.query));
    expect(zohoSearch).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: 'cy.park@parkhome.net' }), expect.objectContaining({ phone: '5125550142' })]),
    );
  });

  it('lists several candidates; accepting one makes the mapping (source suggestion) and associates it', async () => {
    appointment('70000000000000003', { customer: { name: 'Di Moss', email: 'twin@acme.com', phone: null, address: null } });
    appointment('70000000000000004', { customer: { name: 'Di Moss (2nd)', email: 'twin@acme.com', phone: null, address: null } });
    const project = newProject({ customer: { email: 'twin@acme.com' } });
    await deliver(events.projectCreated(project));
    const s = await suggestionOf(project.id, 'appointment');
    expect(s.candidates.map((c: Json) => c.id).sort()).toEqual(['70000000000000003', '70000000000000004']);
    const unnamed = await h.admin(`/api/suggestions/${s.id}/accept`, { method: 'POST', json: {} });
    expect(unnamed.status).toBe(400);
    expect((await json(unnamed)).message).toContain('candidate is required');
    expect((await h.admin(`/api/suggestions/${s.id}/accept`, { method: 'POST', json: { candidate: 'nope' } })).status).toBe(400);
    const accepted = await h.admin(`/api/suggestions/${s.id}/accept`, { method: 'POST', json: { candidate: '70000000000000004' } });
    expect(accepted.status).toBe(201);
    const mapping = await json(accepted);
    expect(mapping).toMatchObject({
      crm: 'appointment',
      appointment_id: '70000000000000004',
      project_id: project.id,
      source: 'suggestion',
      crm_record_name: 'Di Moss (2nd)',
    });
    await waitFor(() => h.service.appointmentAssociations.get(project.id) === '70000000000000004', 15_000, 'the association (A2)');
    expect((await suggestions('accepted')).find((x) => x.id === s.id)).toMatchObject({ status: 'accepted', mapping_id: mapping.id, decided_by: 'admin' });
    expect((await h.admin(`/api/suggestions/${s.id}/accept`, { method: 'POST', json: { candidate: '70000000000000003' } })).status).toBe(409);
  });

  it('dismisses for good: the project is not looked at again in that CRM, even with new fields', async () => {
    appointment('70000000000000005', { job_number: 'JOB-DISMISS', customer: { name: 'Ed Ng', email: null, phone: null, address: null } });
    const project = newProject({ job_number: 'JOB-DISMISS' });
    await deliver(events.projectCreated(project));
    const s = await suggestionOf(project.id, 'appointment');
    const dismissed = await h.admin(`/api/suggestions/${s.id}/dismiss`, { method: 'POST' });
    expect(dismissed.status).toBe(200);
    expect(await json(dismissed)).toMatchObject({ id: s.id, status: 'dismissed', decided_by: 'admin' });
    expect((await suggestions()).find((x) => x.id === s.id)).toBeUndefined();
    expect((await h.admin(`/api/suggestions/${s.id}/dismiss`, { method: 'POST' })).status).toBe(409);
    await deliver(events.projectUpdated({ ...project, job_number: 'JOB-DISMISS-2' }));
    await waitFor(async () => (await json(await h.admin(`/api/deliveries?project_id=${project.id}&status=routed`))).items.length === 2, 10_000, 'routed');
    expect(await entriesOf(project.id, 'suggest_mapping')).toHaveLength(1);
    expect(searchesFor('job_number', 'JOB-DISMISS-2')).toBe(0);
  });

  it('closes an open suggestion when the project is mapped meanwhile', async () => {
    appointment('70000000000000006', { job_number: 'JOB-MEANWHILE', customer: { name: 'Flo Day', email: null, phone: null, address: null } });
    const project = newProject({ job_number: 'JOB-MEANWHILE' });
    await deliver(events.projectCreated(project));
    const s = await suggestionOf(project.id, 'appointment');
    expect(
      (await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: 'APT-BY-HAND', project_id: project.id } })).status,
    ).toBe(201);
    expect((await suggestions()).find((x) => x.id === s.id)).toBeUndefined();
    expect((await suggestions('closed')).find((x) => x.id === s.id)).toMatchObject({ status: 'closed' });
    expect((await h.admin(`/api/suggestions/${s.id}/accept`, { method: 'POST', json: {} })).status).toBe(409);
  });

  it('with auto_accept and exactly one candidate, maps without review (sync log kind auto_map, saying what matched)', async () => {
    await settings('appointment-crm', { auto_accept: true });
    try {
      appointment('70000000000000007', { job_number: 'JOB-AUTO', customer: { name: 'Gus Hale', email: null, phone: null, address: null } });
      const project = newProject({ job_number: 'JOB-AUTO' });
      await deliver(events.projectCreated(project));
      const [entry] = await waitFor(
        async () => {
          const entries = await entriesOf(project.id, 'auto_map');
          return entries.length === 1 && entries[0].status === 'succeeded' ? entries : null;
        },
        15_000,
        'the auto_map entry',
      );
      expect(entry.detail).toContain('Gus Hale (70000000000000007) on job_number');
      const [mapping] = (await json(await h.admin(`/api/mappings?project_id=${project.id}`))).items;
      expect(mapping).toMatchObject({ appointment_id: '70000000000000007', source: 'suggestion', crm_record_name: 'Gus Hale' });
      expect((await suggestions('accepted')).find((s) => s.project_id === project.id)).toMatchObject({ decided_by: null, mapping_id: mapping.id });
      await waitFor(() => h.service.appointmentAssociations.get(project.id) === '70000000000000007', 15_000, 'the association (A2)');
    } finally {
      await settings('appointment-crm', { auto_accept: false });
    }
  });

  it('the full pass sweeps P1: a project made before crm-sync (no webhook) gets its name and its suggestion, once', async () => {
    appointment('70000000000000008', { job_number: 'JOB-BEFORE', customer: { name: 'Hal Ito', email: null, phone: null, address: null } });
    const project = newProject({ job_number: 'JOB-BEFORE' });
    const fullPass = async () => {
      const res = await h.admin('/api/reconcile', { method: 'POST', json: { scope: 'full' } });
      expect(res.status).toBe(202);
      const { id } = await json(res);
      return waitFor(
        async () => {
          const entry = await json(await h.admin(`/api/sync-logs/${id}`));
          return entry.status === 'succeeded' ? entry : null;
        },
        30_000,
        'the full pass',
      );
    };
    const first = await fullPass();
    expect(first.detail).toMatch(/project\(s\) of the service swept \(P1\)/);
    const s = await suggestionOf(project.id, 'appointment');
    expect(s).toMatchObject({ project_name: project.name, candidates: [{ id: '70000000000000008', matched_on: ['job_number'] }] });
    expect((await entriesOf(project.id, 'suggest_mapping'))[0]).toMatchObject({ trigger: 'reconcile' });
    await looked(project.id);
    await fullPass();
    expect(await entriesOf(project.id, 'suggest_mapping')).toHaveLength(1);
    expect(searchesFor('job_number', 'JOB-BEFORE')).toBe(1);
  });

  it("done when: a project with a Zoho Contact's e-mail suggests the Contact's Deal; one click maps it, and the next export reaches that Deal", async () => {
    await settings('record-crm', { module: 'Deals', match_on: ['email'] });
    try {
      const email = 'done.when@acme.com';
      const contact = h.zoho!.addRecord('Contacts', undefined, { Full_Name: 'Ivy Done', Email: email });
      const deal = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Ivy Done roof', Contact_Name: { id: contact, name: 'Ivy Done' } });
      h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Someone else', Contact_Name: { id: '4150868000999999999', name: 'Other' } });
      const project = newProject({ customer: { name: 'Ivy Done', email } });
      const drawing = h.service.addDrawing(project.id);
      h.service.addTemplate('Standard');
      await deliver(events.projectCreated(project));
      const s = await suggestionOf(project.id, 'record');
      // A Zoho candidate opens in Zoho (the simulator's org 12345, its API domain standing for Zoho's web app).
      expect(s.candidates).toEqual([
        {
          id: deal,
          module: 'Deals',
          name: 'Ivy Done roof',
          matched_on: ['email'],
          shared_on: [],
          names_alike: true,
          strong: false,
          web_url: `${h.zoho!.apiDomain}/crm/org12345/tab/Potentials/${deal}`,
        },
      ]);
      const accepted = await h.admin(`/api/suggestions/${s.id}/accept`, { method: 'POST', json: {} });
      expect(accepted.status).toBe(201);
      expect(await json(accepted)).toMatchObject({ crm: 'record', record_crm_module: 'Deals', record_crm_record_id: deal, crm_record_name: 'Ivy Done roof' });
      await waitFor(() => h.service.recordAssociations.get(project.id)?.recordId === deal, 15_000, 'the association (C1)');
      const prompt = recordPrompt({ drawing_id: drawing.id, record_crm_module: 'Deals', record_crm_record_id: deal, yes_no: true });
      const res = await sender.deliverOnce(`${h.url}/webhooks/record-crm/export-prompt`, prompt, { secret: RECORD_PROMPT_SECRET });
      expect(res.status).toBe(200);
      await waitFor(() => h.zoho!.attachmentsOf('Deals', deal).length === 1, 15_000, 'the proposal PDF on the Deal');
    } finally {
      await settings('record-crm', { module: 'Contacts', match_on: ['email', 'phone'] });
    }
  });
  describe('suggestions that cannot cross customers', () => {
    const autoMaps = async (projectId: string) => (await entriesOf(projectId, 'auto_map')).length;
    const withAutoAccept = async (crm: 'appointment-crm' | 'record-crm', run: () => Promise<void>) => {
      await settings(crm, { auto_accept: true });
      try {
        await run();
      } finally {
        await settings(crm, { auto_accept: false });
      }
    };

    it('never matches a placeholder: no search for noemail@ or 0000000000, no candidate holding them', async () => {
      appointment('70000000000000101', { customer: { name: 'Pla Ceholder', email: 'noemail@acme.com', phone: '000-000-0000', address: null } });
      const project = newProject({ customer: { name: 'Pla Ceholder', email: 'noemail@acme.com', phone: '0000000000' } });
      const other = newProject({ customer: { name: 'Real Person', email: 'real.person@acme.com', phone: '0000000000' } });
      appointment('70000000000000102', { customer: { name: 'Someone', email: 'someone@acme.com', phone: '0000000000', address: null } });
      await deliver(events.projectCreated(project));
      await deliver(events.projectCreated(other));
      await looked(other.id);
      expect(await entriesOf(project.id, 'suggest_mapping')).toHaveLength(0);
      expect(searchesFor('email', 'noemail@acme.com') + searchesFor('phone', '0000000000')).toBe(0);
      expect((await suggestions()).filter((s) => s.project_id === project.id || s.project_id === other.id)).toEqual([]);
    });

    it('the household phone: two customers, one phone, is offered for review and never mapped without it', async () => {
      await withAutoAccept('appointment-crm', async () => {
        appointment('70000000000000111', { customer: { name: 'Bo Ruiz', email: 'bo.ruiz@acme.com', phone: '512 555 0111', address: null } });
        const ana = newProject({ customer: { name: 'Ana Ruiz', phone: '+1 512 555 0111' } });
        await deliver(events.projectCreated(ana));
        const forAna = await suggestionOf(ana.id, 'appointment');
        expect(forAna.candidates).toEqual([
          { id: '70000000000000111', module: null, name: 'Bo Ruiz', matched_on: ['phone'], shared_on: [], names_alike: false, strong: false, web_url: null },
        ]);
        // Bo's own project: e-mail and phone, names alike, but the phone is Ana's project's too.
        const bo = newProject({ customer: { name: 'Bo Ruiz', email: 'bo.ruiz@acme.com', phone: '5125550111' } });
        await deliver(events.projectCreated(bo));
        const forBo = await suggestionOf(bo.id, 'appointment');
        expect(forBo.candidates).toEqual([
          {
            id: '70000000000000111',
            module: null,
            name: 'Bo Ruiz',
            matched_on: ['email', 'phone'],
            shared_on: ['phone'],
            names_alike: true,
            strong: false,
            web_url: null,
          },
        ]);
        const entry = (await looked(bo.id, 2)).find((e: Json) => e.crm === 'appointment');
        expect(entry.detail).toContain(
          'auto_accept: left for review, not a strong match (matched on email, phone; phone held by another project or record too',
        );
        expect(await autoMaps(ana.id)).toBe(0);
        expect(await autoMaps(bo.id)).toBe(0);
        expect((await json(await h.admin(`/api/mappings?project_id=${bo.id}`))).items).toEqual([]);
      });
    });

    it("a deliberate copy of another customer's e-mail and phone is not mapped without review; the customer's own project is", async () => {
      await withAutoAccept('appointment-crm', async () => {
        appointment('70000000000000121', { customer: { name: 'Cy Park', email: 'cy.park@acme.com', phone: '512 555 0121', address: null } });
        const copy = newProject({ customer: { name: 'Mal Lory', email: 'CY.PARK@acme.com', phone: '(512) 555-0121' } });
        await deliver(events.projectCreated(copy));
        const s = await suggestionOf(copy.id, 'appointment');
        expect(s.candidates[0]).toMatchObject({ matched_on: ['email', 'phone'], shared_on: [], names_alike: false, strong: false });
        expect(await autoMaps(copy.id)).toBe(0);
        // Now the customer's own project (names alike) with the copy known: the values are held by two projects.
        const own = newProject({ customer: { name: 'Park, Cy', email: 'cy.park@acme.com', phone: '5125550121' } });
        await deliver(events.projectCreated(own));
        expect((await suggestionOf(own.id, 'appointment')).candidates[0]).toMatchObject({ shared_on: ['email', 'phone'], strong: false });
        await looked(own.id);
        expect(await autoMaps(own.id)).toBe(0);

        // A customer of their own: e-mail and phone nobody else holds, names alike: mapped without review.
        appointment('70000000000000122', { customer: { name: 'Dee Ortiz', email: 'dee.ortiz@acme.com', phone: '512 555 0122', address: null } });
        const dee = newProject({ customer: { name: 'Dee Ortiz', email: 'dee.ortiz@acme.com', phone: '512-555-0122' } });
        await deliver(events.projectCreated(dee));
        const [mapped] = await waitFor(
          async () => {
            const entries = await entriesOf(dee.id, 'auto_map');
            return entries.length === 1 && entries[0].status === 'succeeded' ? entries : null;
          },
          15_000,
          "Dee's auto_map",
        );
        expect(mapped.detail).toContain('Dee Ortiz (70000000000000122) on email, phone');
      });
    });

    it('a surname alone, or an e-mail on a reserved domain, never makes a strong match: left for review', async () => {
      await withAutoAccept('appointment-crm', async () => {
        // The household's record under the surname alone; a project of one of its people, same e-mail and phone.
        appointment('70000000000000141', { customer: { name: 'Ruiz', email: 'ruiz.family@acme.com', phone: '512 555 0141', address: null } });
        const bo = newProject({ customer: { name: 'Bo Ruiz', email: 'ruiz.family@acme.com', phone: '512-555-0141' } });
        await deliver(events.projectCreated(bo));
        expect((await suggestionOf(bo.id, 'appointment')).candidates[0]).toMatchObject({
          matched_on: ['email', 'phone'],
          shared_on: [],
          names_alike: false,
          strong: false,
        });
        await looked(bo.id);
        expect(await autoMaps(bo.id)).toBe(0);

        // example.com reaches no one (RFC 2606): typed when there is no address, shared by strangers.
        appointment('70000000000000142', { customer: { name: 'Kim Lane', email: 'kim.lane@example.com', phone: '512 555 0142', address: null } });
        const kim = newProject({ customer: { name: 'Kim Lane', email: 'kim.lane@example.com', phone: '512-555-0142' } });
        await deliver(events.projectCreated(kim));
        expect((await suggestionOf(kim.id, 'appointment')).candidates[0]).toMatchObject({ matched_on: ['phone'], names_alike: true, strong: false });
        await looked(kim.id);
        expect(await autoMaps(kim.id)).toBe(0);
        expect((await json(await h.admin(`/api/mappings?project_id=${bo.id}`))).items).toEqual([]);
      });
    });

    it('accepting reads both sides again: a record whose values changed since the look is marked changed, not mapped', async () => {
      appointment('70000000000000131', { customer: { name: 'Eve Stone', email: 'eve.stone@acme.com', phone: null, address: null } });
      const project = newProject({ customer: { name: 'Eve Stone', email: 'eve.stone@acme.com' } });
      await deliver(events.projectCreated(project));
      const s = await suggestionOf(project.id, 'appointment');
      h.appointmentCrm!.editAppointment('70000000000000131', { customer: { name: 'Fay Other', email: 'fay.other@acme.com', phone: null, address: null } });
      const res = await h.admin(`/api/suggestions/${s.id}/accept`, { method: 'POST', json: {} });
      expect(res.status).toBe(409);
      expect(await json(res)).toMatchObject({ code: 'changed', message: expect.stringContaining('no longer match on email') });
      expect((await suggestions('changed')).find((x) => x.id === s.id)).toMatchObject({ status: 'changed', mapping_id: null });
      expect((await json(await h.admin(`/api/mappings?project_id=${project.id}`))).items).toEqual([]);
      expect((await h.admin(`/api/suggestions/${s.id}/dismiss`, { method: 'POST' })).status).toBe(200);
    });

    it("follows only a Contact's open Deals, and matches Contacts on their primary fields only", async () => {
      await settings('record-crm', { module: 'Deals', match_on: ['email', 'phone'] });
      try {
        const contact = h.zoho!.addRecord('Contacts', undefined, { Full_Name: 'Gil Hart', Email: 'gil.hart@acme.com' });
        const open = h.zoho!.addRecord('Deals', undefined, {
          Deal_Name: 'Gil Hart deck',
          Stage: 'Negotiation/Review',
          Contact_Name: { id: contact, name: 'Gil Hart' },
        });
        h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Gil Hart fence 2019', Stage: 'Closed Won', Contact_Name: { id: contact, name: 'Gil Hart' } });
        h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Gil Hart shed', Stage: 'Closed Lost', Contact_Name: { id: contact, name: 'Gil Hart' } });
        // Someone whose assistant's phone is the project's: not a primary field, not a match.
        h.zoho!.addRecord('Contacts', undefined, { Full_Name: 'Ida Vance', Email: 'ida@acme.com', Asst_Phone: '512 555 0141' });
        const project = newProject({ customer: { name: 'Gil Hart', email: 'gil.hart@acme.com', phone: '512 555 0141' } });
        await deliver(events.projectCreated(project));
        const s = await suggestionOf(project.id, 'record');
        expect(s.candidates).toEqual([
          {
            id: open,
            module: 'Deals',
            name: 'Gil Hart deck',
            matched_on: ['email'],
            shared_on: [],
            names_alike: true,
            strong: false,
            web_url: expect.any(String),
          },
        ]);
      } finally {
        await settings('record-crm', { module: 'Contacts', match_on: ['email', 'phone'] });
      }
    });
  });
});
