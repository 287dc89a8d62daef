import { events, WebhookSender } from '../../sim/service/index.js';
import { EVENTS_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();

describe('names beside ids', () => {
  let h: Harness;
  let seq = 0;
  const sender = new WebhookSender();
  beforeAll(async () => {
    h = await startHarness({ redisDb: 6, appointmentCrm: true, recordCrm: true });
  });
  afterAll(() => h.close());

  const deliver = async (body: unknown) => {
    const answer = await sender.deliverOnce(`${h.url}/webhooks/events`, body as never, { secret: EVENTS_SECRET });
    expect(JSON.parse(answer.body).status).toBe('accepted');
  };
  const projectView = async (id: string): Promise<Json> => json(await h.admin(`/api/projects/${id}`));
  const mappingsOf = async (projectId: string): Promise<Json[]> => (await json(await h.admin(`/api/mappings?project_id=${projectId}`))).items;
  /** Waits until `n` deliveries of the project are routed. */
  const routed = (projectId: string, n: number) =>
    waitFor(
      async () => {
        const items: Json[] = (await json(await h.admin(`/api/deliveries?project_id=${projectId}&status=routed`))).items;
        return items.length >= n;
      },
      10_000,
      `${n} deliveries of project ${projectId} routed`,
    );
  const p4Calls = (id: string) => h.service.requestsTo('GET', `/v1/projects/${id}`).length;

  it('keeps the name and customer of project.created, and the new name of project.updated', async () => {
    const project = h.service.addProject({
      name: `Ruiz kitchen ${++seq}`,
      job_number: 'J-100',
      customer: { name: 'Ana Ruiz', email: 'ana@example.com', phone: '+1 (512) 555-0100' },
    });
    await deliver(events.projectCreated(project));
    await routed(project.id, 1);
    const view = await projectView(project.id);
    expect(view).toMatchObject({
      project_id: project.id,
      name: project.name,
      customer: { name: 'Ana Ruiz', email: 'ana@example.com', phone: '+1 (512) 555-0100' },
    });

    await deliver(events.projectUpdated({ ...project, name: `Ruiz kitchen and bath ${seq}` }));
    await routed(project.id, 2);
    expect((await projectView(project.id)).name).toBe(`Ruiz kitchen and bath ${seq}`);
    // The names came from the events: the service was never asked.
    expect(p4Calls(project.id)).toBe(0);
    // An older fact routed late (an admin's replay of project.created) does not put the old name back.
    const created = (await json(await h.admin(`/api/deliveries?project_id=${project.id}&event=project.created`))).items[0];
    expect((await h.admin(`/api/deliveries/${created.id}/replay`, { method: 'POST' })).status).toBe(202);
    expect((await projectView(project.id)).name).toBe(`Ruiz kitchen and bath ${seq}`);
  });

  it('reads a project it knows only by a mapping with P4 when first shown, then keeps it', async () => {
    const project = h.service.addProject({ name: `Lee deck ${++seq}`, customer: { name: 'Bo Lee' } });
    const mapped = await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: `APT-L-${seq}`, project_id: project.id } });
    expect(mapped.status).toBe(201);
    await waitFor(async () => p4Calls(project.id) > 0 || (await projectView(project.id)).name === project.name, 10_000, 'the name read');
    const view = await projectView(project.id);
    expect(view).toMatchObject({ project_id: project.id, name: project.name, customer: { name: 'Bo Lee', email: null, phone: null } });
    expect(p4Calls(project.id)).toBe(1);
    await projectView(project.id);
    expect(p4Calls(project.id)).toBe(1);
  });

  it('answers 404 for a project crm-sync does not know, without asking the service (P4)', async () => {
    const project = h.service.addProject({ name: `Never told ${++seq}` });
    const res = await h.admin(`/api/projects/${project.id}`);
    expect(res.status).toBe(404);
    expect(p4Calls(project.id)).toBe(0);
  });

  it('puts the project name and the CRM record name on mapping items, reading unknown ones in the background', async () => {
    const project = h.service.addProject({ name: `Kim roof ${++seq}` });
    const appointmentId = `APT-N-${seq}`;
    h.appointmentCrm!.addAppointment(appointmentId, { customer: { name: 'Jo Kim', email: null, phone: null, address: null } });
    const created = await json(
      await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: appointmentId, project_id: project.id } }),
    );
    expect(created).toMatchObject({ project_id: project.id, appointment_id: appointmentId });
    const [item] = await waitFor(
      async () => {
        const items = await mappingsOf(project.id);
        return items[0]?.project_name && items[0]?.crm_record_name ? items : null;
      },
      10_000,
      'both names on the mapping',
    );
    expect(item).toMatchObject({ project_name: project.name, crm_record_name: 'Jo Kim' });
  });

  it("keeps a picker's record name, and reads a Zoho record's name from its Deal_Name", async () => {
    const project = h.service.addProject({ name: `Diaz pool ${++seq}` });
    const picked = await json(
      await h.admin('/api/mappings', {
        method: 'POST',
        json: { crm: 'appointment', appointment_id: `APT-P-${seq}`, project_id: project.id, crm_record_name: 'Eva Diaz' },
      }),
    );
    expect(picked.crm_record_name).toBe('Eva Diaz');
    const deal = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Diaz pool deal' });
    await h.admin('/api/mappings', { method: 'POST', json: { crm: 'record', record_crm_module: 'Deals', record_crm_record_id: deal, project_id: project.id } });
    const items = await waitFor(
      async () => {
        const all = await mappingsOf(project.id);
        return all.length === 2 && all.every((m) => m.crm_record_name) ? all : null;
      },
      10_000,
      'the Deal_Name on the record mapping',
    );
    expect(Object.fromEntries(items.map((m: Json) => [m.crm, m.crm_record_name]))).toEqual({ appointment: 'Eva Diaz', record: 'Diaz pool deal' });
    expect(items.every((m: Json) => m.project_name === project.name)).toBe(true);
    // The sync log names the records its entries are about, as their mappings keep them.
    const entries: Json[] = (await json(await h.admin(`/api/sync-logs?project_id=${project.id}`))).items;
    expect(Object.fromEntries(entries.map((e) => [e.target, e.target_name]))).toEqual({ [`APT-P-${seq}`]: 'Eva Diaz', [`Deals/${deal}`]: 'Diaz pool deal' });
    const view = await projectView(project.id);
    expect(view.actions.map((a: Json) => a.target_name).sort()).toEqual(['Diaz pool deal', 'Eva Diaz']);
  });

  it('names the project on sync log entries and inbox deliveries', async () => {
    const project = h.service.addProject({ name: `Ng fence ${++seq}` });
    await deliver(events.projectCreated(project));
    const entries = await waitFor(
      async () => {
        const items = (await json(await h.admin(`/api/sync-logs?project_id=${project.id}`))).items;
        return items.length > 0 ? items : null;
      },
      10_000,
      'the routing entry',
    );
    expect(entries[0]).toMatchObject({ project_id: project.id, project_name: project.name });
    const deliveries = (await json(await h.admin(`/api/deliveries?project_id=${project.id}`))).items;
    expect(deliveries[0]).toMatchObject({ project_id: project.id, project_name: project.name });
    const one = await json(await h.admin(`/api/sync-logs/${entries[0].id}`));
    expect(one.project_name).toBe(project.name);
  });

  it('asks P4 once about a project the service does not know, however often the list is shown', async () => {
    const unknown = '36029621652698888';
    expect(
      (await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: `APT-U-${++seq}`, project_id: unknown } })).status,
    ).toBe(201);
    await mappingsOf(unknown);
    await waitFor(() => p4Calls(unknown) === 1, 10_000, 'the background P4');
    for (let i = 0; i < 3; i++) {
      expect((await mappingsOf(unknown))[0].project_name).toBeNull();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(p4Calls(unknown)).toBe(1);
  });
});
