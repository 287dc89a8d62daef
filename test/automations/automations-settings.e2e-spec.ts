import { AutomationSettingsService } from '../../src/crm-settings/automation-settings.service.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const ADMIN_TOKENS = `vera:viewer:${VIEWER},otto:operator:${OPERATOR}`;

describe('automation settings: GET and PUT /api/automations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 11, env: { ADMIN_TOKENS } });
  });
  afterAll(() => h.close());

  const as = (token: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${h.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
  const put = (crm: 'appointment-crm' | 'record-crm', body: unknown) => h.admin(`/api/automations/${crm}`, { method: 'PUT', json: body });

  it('answers the defaults, off, before anything is saved', async () => {
    const res = await h.admin('/api/automations');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.appointment_crm).toEqual({
      create_projects: false,
      statuses: [],
      owner: null,
      owner_from_sales_rep: false,
      match_on: [],
      auto_accept: false,
      start_from: null,
      last_run_at: null,
      cursor: null,
      last_error: null,
      updated_at: null,
      updated_by: null,
    });
    expect(body.record_crm).toMatchObject({
      create_projects: false,
      module: 'Deals',
      field: null,
      values: [],
      match_fields: {},
      deal_stage_on_approved: 'Closed Won',
      deal_stage_on_lost: null,
      quote_line_items: false,
      fallback_product_id: null,
      start_from: null,
      last_run_at: null,
    });
  });

  it('saves the appointment CRM automation; a later PUT that leaves fields out keeps them', async () => {
    const saved = await put('appointment-crm', {
      create_projects: true,
      statuses: ['Sold', ' Scheduled ', 'Sold'],
      owner: 'owner@example.com',
      owner_from_sales_rep: true,
      match_on: ['email', 'phone'],
    });
    expect(saved.status).toBe(200);
    expect(await json(saved)).toMatchObject({ create_projects: true, statuses: ['Sold', 'Scheduled'], owner: 'owner@example.com', updated_by: 'admin' });

    expect((await put('appointment-crm', { auto_accept: true })).status).toBe(200);
    const { appointment_crm } = await json(await h.admin('/api/automations'));
    expect(appointment_crm).toMatchObject({
      create_projects: true,
      statuses: ['Sold', 'Scheduled'],
      owner: 'owner@example.com',
      owner_from_sales_rep: true,
      match_on: ['email', 'phone'],
      auto_accept: true,
    });
    const audit = await h.database.query<Json[]>(`SELECT detail, actor FROM sync_log WHERE kind = 'admin_write' AND crm = 'appointment' ORDER BY id`);
    expect(audit.at(-1)).toMatchObject({ actor: 'admin', detail: expect.stringContaining('appointment CRM automation saved') });
  });

  it('refuses with 422 naming every bad field, each with a code, and saves nothing', async () => {
    const before = await json(await h.admin('/api/automations'));
    const res = await put('appointment-crm', {
      create_projects: 'yes',
      statuses: ['Sold', ''],
      owner: 'not an e-mail',
      match_on: ['email', 'zodiac'],
      start_from: 'yesterday',
      colour: 'blue',
    });
    expect(res.status).toBe(422);
    const body = await json(res);
    const byField = Object.fromEntries(body.errors.map((e: Json) => [e.field, e.code]));
    expect(byField).toEqual({
      create_projects: 'isBoolean',
      statuses: 'isArray',
      owner: 'isEmail',
      match_on: 'isIn',
      start_from: 'isIso8601',
      colour: 'whitelistValidation',
    });
    expect(body.errors.every((e: Json) => typeof e.message === 'string' && e.message.length > 0)).toBe(true);
    expect(await json(await h.admin('/api/automations'))).toEqual(before);
  });

  it('requires a default owner when creation is on', async () => {
    const res = await put('record-crm', { create_projects: true, owner: null });
    expect(res.status).toBe(422);
    expect((await json(res)).errors).toEqual([expect.objectContaining({ field: 'owner', code: 'required' })]);
  });

  it('saves the record CRM automation with the revenue fields, ids exact', async () => {
    const res = await h.admin('/api/automations/record-crm', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      // A bare JSON number beyond 2^53 must keep every digit.
      body: `{"create_projects":true,"module":"Quotes","field":"Quote_Stage","values":["Confirmed"],"owner":"owner@example.com",
              "match_fields":{"job_number":"Job_Number"},"deal_stage_on_lost":"Closed Lost","quote_line_items":true,
              "fallback_product_id":4150868000005277036123,"last_run_at":"2026-01-01T00:00:00Z"}`,
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      module: 'Quotes',
      field: 'Quote_Stage',
      values: ['Confirmed'],
      match_fields: { job_number: 'Job_Number' },
      deal_stage_on_approved: 'Closed Won',
      deal_stage_on_lost: 'Closed Lost',
      quote_line_items: true,
      fallback_product_id: '4150868000005277036123',
      last_run_at: null,
    });
    const bad = await put('record-crm', {
      module: 'Invoices',
      field: 'Stage; DROP',
      match_fields: { email: 'Email' },
      fallback_product_id: 'P-1',
      deal_stage_on_approved: '',
      start_from: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(bad.status).toBe(422);
    expect((await json(bad)).errors.map((e: Json) => `${e.field}:${e.code}`)).toEqual([
      'module:isIn',
      'field:isZohoField',
      'match_fields.email:whitelistValidation',
      'deal_stage_on_approved:isString',
      'fallback_product_id:isDigits',
      'start_from:maxDate',
    ]);
    for (const startFrom of ['2026-01-31', '2026-01-31T00:00:00', 20260131]) expect((await put('record-crm', { start_from: startFrom })).status).toBe(422);
    const started = await json(await put('record-crm', { start_from: '2026-01-31T01:00:00+01:00' }));
    expect(started).toMatchObject({ start_from: '2026-01-31T00:00:00.000Z', cursor: '2026-01-31T00:00:00.000Z' });
    const values = await put('record-crm', { field: null, values: ['Won'] });
    expect((await json(values)).errors).toEqual([expect.objectContaining({ field: 'field', code: 'required' })]);
  });

  it('lets a viewer read, and only an admin write', async () => {
    expect((await as(VIEWER, '/api/automations')).status).toBe(200);
    expect((await as(VIEWER, '/api/automations/appointment-crm', { method: 'PUT', json: { auto_accept: false } })).status).toBe(403);
    expect((await as(OPERATOR, '/api/automations/record-crm', { method: 'PUT', json: { auto_accept: false } })).status).toBe(403);
    expect((await fetch(`${h.url}/api/automations`)).status).toBe(401);
  });

  it('a save on one replica is in effect on another within 10 s', async () => {
    const other = await startHarness({ redisDb: 11, databaseUrl: h.databaseUrl });
    try {
      const settings = other.app.get(AutomationSettingsService);
      expect((await settings.appointmentCrm()).statuses).toEqual(['Sold', 'Scheduled']); // read, so now cached there
      const saved = Date.now();
      expect((await put('appointment-crm', { statuses: ['Won'] })).status).toBe(200);
      await waitFor(async () => (await settings.appointmentCrm()).statuses[0] === 'Won', 10_000, 'the other replica to see the save');
      expect(Date.now() - saved).toBeLessThan(10_000);
    } finally {
      await other.close();
    }
  });
});
