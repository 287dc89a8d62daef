import { readChangesNow } from '../support/automations.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = Record<string, any>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

const OWNER = 'owner@example.com';
const REP = 'estimator@example.com';

describe('automations: a project for each qualifying Zoho record, once', () => {
  let h: Harness;
  let clock = Date.parse('2026-03-01T08:00:00Z');
  const later = () => new Date((clock += 5_000));
  beforeAll(async () => {
    h = await startHarness({ redisDb: 13, recordCrm: true, env: { AUTOMATION_POLL_SECONDS: '0' } });
    const res = await h.admin('/api/automations/record-crm', {
      method: 'PUT',
      json: {
        create_projects: true,
        module: 'Deals',
        field: 'Stage',
        values: ['Closed Won'],
        owner: OWNER,
        match_fields: { job_number: 'Job_Number' },
        // The records of this file are dated from 2026-03-01 on: read them (by default the first read starts now).
        start_from: '2026-01-01T00:00:00Z',
      },
    });
    expect(res.status).toBe(200);
  });
  afterAll(() => h.close());

  const zoho = () => h.zoho!;
  const read = () => readChangesNow(h, 'record-crm');
  const projectsOf = (recordId: string) => [...h.service.projects.values()].filter((p) => p.name.endsWith(`(${recordId})`));
  const contactsCalls = () => zoho().api.requests.filter((r) => r.method === 'GET' && r.path === '/crm/v8/Contacts' && r.query.has('ids')).length;

  it("creates a Deal's project with its Contact as customer (one Contacts call per page), maps it and associates it by C1", async () => {
    const contact = zoho().addRecord(
      'Contacts',
      undefined,
      {
        Full_Name: 'Carla Contact',
        Email: 'carla@example.com',
        Phone: '555-0199',
        Mailing_Street: '9 Elm St',
        Mailing_City: 'Shelbyville',
        Mailing_State: 'IL',
        Mailing_Zip: '62565',
      },
      later(),
    );
    const lookup = { id: contact, name: 'Carla Contact' };
    const won = zoho().addRecord(
      'Deals',
      undefined,
      { Deal_Name: 'Roof', Stage: 'Closed Won', Contact_Name: lookup, Owner: { id: '111', name: 'Sam Rep', email: REP }, Job_Number: 'J-7' },
      later(),
    );
    const alsoWon = zoho().addRecord('Deals', undefined, { Deal_Name: 'Gutters', Stage: 'closed won', Contact_Name: lookup }, later());
    const noContact = zoho().addRecord('Deals', undefined, { Deal_Name: 'Shed: rear/left', Stage: 'Closed Won' }, later());
    const open = zoho().addRecord('Deals', undefined, { Deal_Name: 'Maybe', Stage: 'Qualification', Contact_Name: lookup }, later());
    const contactsBefore = contactsCalls();

    const run = await read();
    expect(run).toMatchObject({ kind: 'poll_changes', crm: 'record', status: 'succeeded' });
    expect(run.detail).toMatch(/3 project\(s\) to create/);
    expect(contactsCalls() - contactsBefore).toBe(1);

    const [project] = projectsOf(won);
    expect(project).toMatchObject({
      name: `Carla Contact (${won})`,
      job_number: 'J-7',
      customer: {
        name: 'Carla Contact',
        email: 'carla@example.com',
        phone: '555-0199',
        address: { street: '9 Elm St', city: 'Shelbyville', state: 'IL', zip_code: '62565' },
      },
      work_site_address: { street: '9 Elm St', city: 'Shelbyville', state: 'IL', zip_code: '62565' },
      sales_rep: { name: 'Sam Rep', email: REP },
      tags: ['crm-sync'],
    });
    expect(h.service.projectOwners.get(project.id)).toBe(OWNER);
    expect(projectsOf(alsoWon)).toHaveLength(1);
    expect(projectsOf(noContact).map((p) => p.name)).toEqual([`Shed rear left (${noContact})`]);
    expect(projectsOf(open)).toHaveLength(0);

    await waitFor(() => h.service.recordAssociations.get(project.id)?.recordId === won, 10_000, 'the C1 association');
    const mappings = (await json(await h.admin('/api/mappings?crm=record'))).items as Json[];
    expect(mappings.find((m) => m.record_crm_record_id === won)).toMatchObject({
      record_crm_module: 'Deals',
      project_id: project.id,
      source: 'automation',
      status: 'associated',
    });
    const entries = await h.database.query<Json[]>(`SELECT status, trigger FROM sync_log WHERE kind = 'create_project' AND target = $1`, [`Deals/${won}`]);
    expect(entries).toEqual([{ status: 'succeeded', trigger: 'automation' }]);
  });

  it('makes no second project for a record edited again, and deletes nothing when it stops qualifying', async () => {
    const deal = zoho().addRecord('Deals', undefined, { Deal_Name: 'Patio', Stage: 'Closed Won' }, later());
    await read();
    expect(projectsOf(deal)).toHaveLength(1);
    for (let i = 0; i < 3; i++) zoho().modifyRecord('Deals', deal, { Deal_Name: `Patio ${i}` }, later());
    await read();
    zoho().modifyRecord('Deals', deal, { Stage: 'Closed Lost' }, later());
    await read();
    expect(projectsOf(deal)).toHaveLength(1);
    const entries = await h.database.query<Json[]>(`SELECT id FROM sync_log WHERE kind = 'create_project' AND target = $1`, [`Deals/${deal}`]);
    expect(entries).toHaveLength(1);
    const mappings = (await json(await h.admin('/api/mappings?crm=record'))).items as Json[];
    expect(mappings.filter((m) => m.record_crm_record_id === deal)).toHaveLength(1);
  });

  it("reads another module from the moment it changes, or from a start_from given; a Lead's project named after the Lead", async () => {
    const lead = zoho().addRecord(
      'Leads',
      undefined,
      { First_Name: 'Lee', Last_Name: 'Lead', Email: 'lee@example.com', City: 'Ogdenville', Lead_Status: 'Qualified' },
      new Date(Date.parse('2025-01-01T00:00:00Z')),
    );
    const changedAt = Date.now();
    const saved = await json(
      await h.admin('/api/automations/record-crm', { method: 'PUT', json: { module: 'Leads', field: 'Lead_Status', values: ['Qualified'] } }),
    );
    expect(Date.parse(saved.cursor)).toBeGreaterThanOrEqual(changedAt - 1_000);
    expect(Date.parse(saved.cursor)).toBeLessThanOrEqual(Date.now());
    await read();
    expect(projectsOf(lead)).toHaveLength(0);

    const history = await json(await h.admin('/api/automations/record-crm', { method: 'PUT', json: { start_from: '2024-12-31T00:00:00Z' } }));
    expect(history).toMatchObject({ start_from: '2024-12-31T00:00:00.000Z', cursor: '2024-12-31T00:00:00.000Z' });
    await read();
    expect(projectsOf(lead)).toEqual([
      expect.objectContaining({ name: `Lee Lead (${lead})`, customer: { name: 'Lee Lead', email: 'lee@example.com', address: { city: 'Ogdenville' } } }),
    ]);
  });
});
