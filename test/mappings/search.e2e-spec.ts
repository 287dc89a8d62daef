import { startHarness, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();

describe('search on both sides (the pickers of "Add a mapping")', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 8, appointmentCrm: true, recordCrm: true, env: { SEARCH_MAX_PER_USER: '1000' } });
  });
  afterAll(() => h.close());

  const search = (path: string) => h.admin(`/api/search/${path}`);

  describe('projects (P5)', () => {
    it('finds projects by part of their name, ids exact, and keeps their names for the other screens', async () => {
      const older = h.service.addProject({ name: 'Ortiz kitchen', customer: { name: 'Luz Ortiz' } });
      const newer = h.service.addProject({ name: 'ORTIZ garage' });
      h.service.addProject({ name: 'Nguyen patio' });
      const res = await search('projects?q=ortiz');
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.items).toEqual([
        { id: newer.id, name: 'ORTIZ garage', customer_name: null, created_at: newer.created_at },
        { id: older.id, name: 'Ortiz kitchen', customer_name: 'Luz Ortiz', created_at: older.created_at },
      ]);
      expect(BigInt(older.id) > 2n ** 53n).toBe(true);
      const p5 = h.service.requestsTo('POST', '/v1/projects/search').at(-1)!;
      expect(JSON.parse(p5.body.toString('utf8'))).toMatchObject({ project_name: 'ortiz' });
      // The project is known now: a mapping made from the picker answers with its name at once.
      const mapping = await json(
        await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: 'APT-S-1', project_id: older.id } }),
      );
      expect(mapping.project_name).toBe('Ortiz kitchen');
    });

    it('answers an empty list when nothing matches, and 400 without q', async () => {
      expect(await json(await search('projects?q=zzz-nothing'))).toEqual({ items: [] });
      const bad = await search('projects');
      expect(bad.status).toBe(400);
      expect((await json(bad)).message).toContain('q is required');
    });

    it("answers 502 with the service's reason when P5 fails", async () => {
      h.service.injectFault({ method: 'POST', path: '/v1/projects/search', status: 400, body: { message: 'bad search' }, times: 1 });
      const res = await search('projects?q=ortiz');
      expect(res.status).toBe(502);
      expect((await json(res)).message).toContain('P5');
    });
  });

  describe('appointment CRM records', () => {
    it("finds appointments with the CRM's search, named by their customer", async () => {
      const id = '36029621652690001';
      h.appointmentCrm!.addAppointment(id, {
        job_number: 'J-501',
        customer: { name: 'Ana Ruiz', email: 'ana@example.com', phone: '555-010-2030', address: null },
      });
      h.appointmentCrm!.addAppointment('APT-OTHER', { customer: { name: 'Bo Lee', email: null, phone: null, address: null } });
      const res = await search('crm-records?crm=appointment&q=ruiz');
      expect(res.status).toBe(200);
      const { items } = await json(res);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ id, module: null, name: 'Ana Ruiz' });
      expect(items[0].detail).toContain('job J-501');
      expect(items[0].detail).toContain('ana@example.com');
      const sent = h.appointmentCrm!.requestsTo('GET', '/appointments').at(-1)!;
      expect(sent.query.get('q')).toBe('ruiz');
    });

    it('answers 502 when the CRM fails', async () => {
      h.appointmentCrm!.injectFault({ method: 'GET', path: '/appointments', status: 400, body: { error: 'no' }, times: 1 });
      expect((await search('crm-records?crm=appointment&q=ruiz')).status).toBe(502);
    });
  });

  describe('Zoho CRM records', () => {
    it("finds records of a module with Zoho's word search, named by Deal_Name, Full_Name or Subject", async () => {
      const deal = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Castillo roof', Stage: 'Qualification' });
      h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Unrelated deal' });
      const contact = h.zoho!.addRecord('Contacts', undefined, { Full_Name: 'Rosa Castillo', Email: 'rosa@example.com' });
      const deals = await json(await search('crm-records?crm=record&module=Deals&q=castillo'));
      expect(deals.items).toEqual([{ id: deal, module: 'Deals', name: 'Castillo roof', detail: 'Qualification' }]);
      const contacts = await json(await search('crm-records?crm=record&module=Contacts&q=castillo'));
      expect(contacts.items).toEqual([{ id: contact, module: 'Contacts', name: 'Rosa Castillo', detail: 'rosa@example.com' }]);
      const sent = h.zoho!.api.requestsTo('GET', '/crm/v8/Contacts/search').at(-1)!;
      expect(sent.query.get('word')).toBe('castillo');
    });

    it("finds Products (the revenue settings' fallback product) by part of their name or code, named with their code", async () => {
      const labour = h.zoho!.revenue.addProduct('Installation labour', 'SVC-LAB');
      h.zoho!.revenue.addProduct('Chain link panel', 'CL-6');
      const byName = await json(await search('crm-records?crm=record&module=Products&q=LABOUR'));
      expect(byName.items).toEqual([{ id: labour, module: 'Products', name: 'Installation labour', detail: 'code SVC-LAB' }]);
      const byCode = await json(await search('crm-records?crm=record&module=Products&q=svc-l'));
      expect(byCode.items.map((i: { id: string }) => i.id)).toEqual([labour]);
      const sent = h.zoho!.api.requestsTo('GET', '/crm/v8/Products/search').at(-1)!;
      expect(sent.query.get('word')).toBe('svc-l');
      expect(sent.query.get('criteria')).toBeNull();
      expect(await json(await search('crm-records?crm=record&module=Products&q=nothing-like-it'))).toEqual({ items: [] });
      // Products are searched for the settings only: a mapping's module stays one of the four.
      expect((await search('crm-records?crm=record&module=Invoices&q=labour')).status).toBe(400);
    });

    it('reads 204 (nothing matched) as an empty list', async () => {
      expect(await json(await search('crm-records?crm=record&module=Quotes&q=nothing-like-it'))).toEqual({ items: [] });
    });

    it('refuses a search without module, or with a word under 2 characters, naming the field', async () => {
      const noModule = await search('crm-records?crm=record&q=castillo');
      expect(noModule.status).toBe(400);
      expect((await json(noModule)).message).toContain('module is required');
      const short = await search('crm-records?crm=record&module=Deals&q=c');
      expect(short.status).toBe(400);
      expect((await json(short)).message).toContain('q must be at least 2 characters');
      expect((await search('crm-records?crm=nope&q=castillo')).status).toBe(400);
    });
  });
});

describe('search is for operators, within a limit per user', () => {
  const VIEWER = 'viewer-token-search-0123456789';
  const OPERATOR = 'operator-token-search-0123456789';
  const OTHER_OPERATOR = 'operator-token-search-9876543210';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      redisDb: 8,
      appointmentCrm: true,
      env: {
        ADMIN_TOKENS: `vera:viewer:${VIEWER},otto:operator:${OPERATOR},olga:operator:${OTHER_OPERATOR}`,
        SEARCH_MAX_PER_USER: '3',
        SEARCH_WINDOW_SECONDS: '120',
      },
    });
  });
  afterAll(() => h.close());

  const as = (token: string, path: string) => fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('refuses a viewer (403) without calling the service or the CRM', async () => {
    for (const path of ['/api/search/projects?q=ortiz', '/api/search/crm-records?crm=appointment&q=ortiz']) {
      const res = await as(VIEWER, path);
      expect(res.status).toBe(403);
      expect((await json(res)).required_role).toBe('operator');
    }
    expect(h.service.requestsTo('POST', '/v1/projects/search')).toHaveLength(0);
    expect(h.appointmentCrm!.requestsTo('GET', '/appointments')).toHaveLength(0);
  });

  it('answers 429 with Retry-After past SEARCH_MAX_PER_USER searches of one user, and counts each user apart', async () => {
    for (let i = 0; i < 3; i++) expect((await as(OPERATOR, `/api/search/projects?q=ortiz${i}`)).status).toBe(200);
    const refused = await as(OPERATOR, '/api/search/crm-records?crm=appointment&q=ortiz');
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(120);
    expect((await json(refused)).message).toContain('SEARCH_MAX_PER_USER');
    expect(h.service.requestsTo('POST', '/v1/projects/search')).toHaveLength(3);
    expect(h.appointmentCrm!.requestsTo('GET', '/appointments')).toHaveLength(0);
    expect((await as(OTHER_OPERATOR, '/api/search/projects?q=ortiz')).status).toBe(200);
  });
});
