import { ADMIN_TOKEN, startHarness, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();
const HEADER = 'crm,appointment_id,record_crm_module,record_crm_record_id,project_id';

describe('admin API: auth, mappings, CSV import', () => {
  let h: Harness;
  beforeAll(async () => {
    // The auth cases below send a dozen wrong tokens from one address: above the sign-in limit (session-hardening.e2e-spec.ts).
    h = await startHarness({ redisDb: 6, tune: (config) => (config.signIn.maxFailures = 100) });
  });
  afterAll(() => h.close());

  const csv = (text: string) => h.admin('/api/mappings/import', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: text });
  const post = (body: unknown) => h.admin('/api/mappings', { method: 'POST', json: body });

  describe('auth', () => {
    it.each([
      ['GET', '/api/mappings'],
      ['GET', '/api/sync-logs'],
      ['POST', '/api/mappings/associate'],
    ])('%s %s: 401 without a token or with a wrong one', async (method, path) => {
      const none = await fetch(`${h.url}${path}`, { method });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain('Bearer');
      expect(await json(none)).toMatchObject({ statusCode: 401 });
      for (const authorization of [`Bearer ${ADMIN_TOKEN}x`, `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, `Basic ${ADMIN_TOKEN}`, ADMIN_TOKEN]) {
        const wrong = await fetch(`${h.url}${path}`, { method, headers: { authorization } });
        expect(wrong.status).toBe(401);
      }
    });

    it('lets the right token through', async () => {
      expect((await h.admin('/api/mappings')).status).toBe(200);
      expect((await h.admin('/api/sync-logs')).status).toBe(200);
    });

    it('documents the admin bearer scheme on the routes', async () => {
      const doc = await json(await fetch(`${h.url}/docs-json`));
      expect(doc.paths['/api/mappings'].get.security).toEqual([{ admin: [] }]);
      expect(doc.paths['/api/sync-logs/{id}/retry'].post.security).toEqual([{ admin: [] }]);
    });
  });

  describe('creating mappings', () => {
    it('creates one, ids kept exact, numbers accepted', async () => {
      const res = await h.admin('/api/mappings', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"crm":"appointment","appointment_id":"APT-1","project_id":36029621652695017}',
      });
      expect(res.status).toBe(201);
      const m = await json(res);
      expect(m).toEqual({
        id: expect.stringMatching(/^\d+$/),
        crm: 'appointment',
        appointment_id: 'APT-1',
        record_crm_module: null,
        record_crm_record_id: null,
        crm_record_name: null,
        project_id: '36029621652695017',
        project_name: null,
        status: 'pending',
        source: 'admin',
        error: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        updated_at: expect.stringMatching(/Z$/),
        web_url: null,
      });
      const small = await json(
        await post({ crm: 'record', record_crm_module: 'Deals', record_crm_record_id: 4150868000004357001n.toString(), project_id: 77 }),
      );
      expect(small).toMatchObject({ crm: 'record', record_crm_module: 'Deals', record_crm_record_id: '4150868000004357001', project_id: '77' });
    });

    it('answers 409 naming the mapping in the way', async () => {
      const first = await json(await post({ crm: 'appointment', appointment_id: 'APT-C', project_id: '900' }));
      const sameAppointment = await post({ crm: 'appointment', appointment_id: 'APT-C', project_id: '901' });
      expect(sameAppointment.status).toBe(409);
      const body = await json(sameAppointment);
      expect(body.message).toContain(`mapping ${first.id}`);
      expect(body.message).toContain('appointment APT-C is already mapped');
      expect(body.existing).toMatchObject({ id: first.id, appointment_id: 'APT-C', project_id: '900' });
      // The field in the way, as a stable code and field name (the console marks that field).
      expect(body).toMatchObject({ code: 'already_mapped', field: 'appointment_id' });
      const sameProject = await json(await post({ crm: 'appointment', appointment_id: 'APT-D', project_id: '900' }));
      expect(sameProject.message).toMatch(new RegExp(`project 900 already has an appointment mapping: mapping ${first.id}`));
      expect(sameProject).toMatchObject({ code: 'already_mapped', field: 'project_id' });
      // A record mapping of the same project is fine.
      expect((await post({ crm: 'record', record_crm_module: 'Leads', record_crm_record_id: '5', project_id: '900' })).status).toBe(201);
    });

    it('answers 400 naming the field', async () => {
      // [body, text, the field and code in `errors` (none for a body that is not a mapping)]
      const cases: Array<[unknown, string, [string, string] | null]> = [
        [{ crm: 'fax', project_id: '1' }, 'crm must be appointment or record', ['crm', 'isIn']],
        [{ crm: 'appointment', project_id: '1' }, 'appointment_id is required when crm is appointment', ['appointment_id', 'isDefined']],
        [{ crm: 'appointment', appointment_id: 'A', project_id: 'abc' }, 'project_id must be a string of digits', ['project_id', 'matches']],
        [{ crm: 'appointment', appointment_id: 'A', project_id: 1.5 }, 'project_id must be a string of digits', ['project_id', 'matches']],
        [
          { crm: 'appointment', appointment_id: 'A', project_id: '007' },
          'project_id must be a string of digits without leading zeros',
          ['project_id', 'matches'],
        ],
        [
          { crm: 'record', record_crm_module: 'Accounts', record_crm_record_id: '1', project_id: '1' },
          'record_crm_module must be one of',
          ['record_crm_module', 'isIn'],
        ],
        [{ crm: 'record', record_crm_module: 'Deals', project_id: '1' }, 'record_crm_record_id is required', ['record_crm_record_id', 'isDefined']],
        [
          { crm: 'record', appointment_id: 'A', record_crm_module: 'Deals', record_crm_record_id: '1', project_id: '1' },
          'appointment_id must be empty',
          ['appointment_id', 'not_for_this_crm'],
        ],
        [{ crm: 'appointment', appointment_id: 'A', project_id: '1', colour: 'red' }, 'unknown field colour', ['colour', 'whitelistValidation']],
        [[1], 'the body must be a mapping object', null],
      ];
      for (const [body, message, coded] of cases) {
        const res = await post(body);
        expect(res.status).toBe(400);
        const answer = await json(res);
        expect(answer.message).toContain(message);
        if (coded) expect([answer.errors[0].field, answer.errors[0].code]).toEqual(coded);
        if (coded) expect(answer.errors[0].message).toContain(message);
      }
    });

    it('creates many with per-item results', async () => {
      const res = await post({
        items: [
          { crm: 'appointment', appointment_id: 'B-1', project_id: '1001' },
          { crm: 'appointment', appointment_id: 'B-2', project_id: 'x' },
          { crm: 'appointment', appointment_id: 'B-1', project_id: '1002' },
          { crm: 'record', record_crm_module: 'Quotes', record_crm_record_id: 99, project_id: '1001' },
        ],
      });
      expect(res.status).toBe(207); // some items refused (all created: 200, all refused: 422)
      const body = await json(res);
      expect(body.created).toBe(2);
      expect(body.items.map((i: Json) => [i.index, i.status])).toEqual([
        [0, 'created'],
        [1, 'error'],
        [2, 'error'],
        [3, 'created'],
      ]);
      expect(body.items[1].error).toContain('project_id must be a string of digits');
      expect(body.items[2].error).toContain(`mapping ${body.items[0].mapping.id}`);
      expect(body.items[2].existing.appointment_id).toBe('B-1');
      expect(body.items[3].mapping.record_crm_record_id).toBe('99');
      expect((await post({ items: [] })).status).toBe(400);
    });
  });

  describe('CSV import', () => {
    it('keeps good rows and names bad ones by physical line', async () => {
      const text = [
        HEADER, // 1
        'appointment,CSV-1,,,2001', // 2
        'appointment,"CSV\nTWO",,,2002', // 3-4: a quoted field over two lines (ids may not hold line breaks)
        'appointment,CSV-3,,,2003', // 5
        '', // 6: blank, passed over
        'record,,Deals,3004,2004', // 7
        'record,,Deals,x,2005', // 8
        'appointment,CSV-1,,,2006', // 9: appointment taken by line 2
        'appointment,CSV-9,,', // 10: short row
        '"appointment","CSV-10",,,"2010"', // 11
      ].join('\r\n');
      const res = await csv(`${text}\n`);
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.items.map((r: Json) => [r.line, r.status])).toEqual([
        [2, 'created'],
        [3, 'error'],
        [5, 'created'],
        [7, 'created'],
        [8, 'error'],
        [9, 'error'],
        [10, 'error'],
        [11, 'created'],
      ]);
      expect(body).toMatchObject({ created: 4, errors: 4 });
      const byLine = new Map(body.items.map((r: Json) => [r.line, r]));
      expect((byLine.get(3) as Json).error).toContain('appointment_id must not contain');
      expect((byLine.get(8) as Json).error).toContain('record_crm_record_id must be a string of digits');
      expect((byLine.get(9) as Json).error).toContain(`appointment CSV-1 is already mapped: mapping ${(byLine.get(2) as Json).mapping_id}`);
      expect((byLine.get(10) as Json).error).toBe('expected 5 columns, found 4');
      expect((byLine.get(2) as Json).error).toBeNull();
      const listed = await json(await h.admin('/api/mappings?project_id=2004'));
      expect(listed.items).toEqual([expect.objectContaining({ crm: 'record', record_crm_module: 'Deals', record_crm_record_id: '3004', source: 'import' })]);
    });

    it('reports an unclosed quote at the line where its row starts', async () => {
      const body = await json(await csv(`${HEADER}\nappointment,Q-1,,,3001\nappointment,"Q-2,,,3002\nappointment,Q-3,,,3003\n`));
      expect(body.items.map((r: Json) => [r.line, r.status])).toEqual([
        [2, 'created'],
        [3, 'error'],
      ]);
      expect(body.items[1].error).toContain('unreadable row');
    });

    it('answers 400 for a missing or wrong header, 415 for another content type', async () => {
      const noHeader = await csv('appointment,H-1,,,4001\n');
      expect(noHeader.status).toBe(400);
      expect((await json(noHeader)).message).toContain('must be the header crm,appointment_id');
      expect((await csv('crm,appointment_id,project_id\n')).status).toBe(400);
      expect((await csv('')).status).toBe(400);
      const wrongType = await h.admin('/api/mappings/import', { method: 'POST', json: { crm: 'appointment' } });
      expect(wrongType.status).toBe(415);
    });

    // Its speed is measured by `npm run bench:associate`, not here.
    it('imports 10,000 rows in one request', async () => {
      const lines = [HEADER];
      for (let i = 0; i < 10_000; i++) lines.push(`appointment,BULK-${i},,,${50_000_000 + i}`);
      const body = await json(await csv(lines.join('\n')));
      expect(body).toMatchObject({ created: 10_000, errors: 0 });
      expect(body.items[9999]).toMatchObject({ line: 10_001, status: 'created' });
    });
  });

  describe('listing and removing', () => {
    it('filters, pages with a cursor, and validates limit', async () => {
      for (let i = 0; i < 5; i++) await post({ crm: 'record', record_crm_module: 'Contacts', record_crm_record_id: `${700 + i}`, project_id: `${7000 + i}` });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Json = await json(await h.admin(`/api/mappings?crm=record&status=pending&limit=2${cursor ? `&cursor=${cursor}` : ''}`));
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((m: Json) => m.id));
        cursor = page.next_cursor;
      } while (cursor);
      const all = await json(await h.admin('/api/mappings?crm=record&limit=500'));
      expect(seen).toEqual(all.items.map((m: Json) => m.id));
      expect(all.items.every((m: Json) => m.crm === 'record')).toBe(true);
      expect(all.next_cursor).toBeNull();
      expect((await json(await h.admin('/api/mappings'))).items).toHaveLength(50);

      for (const query of ['limit=0', 'limit=501', 'limit=abc']) {
        const res = await h.admin(`/api/mappings?${query}`);
        expect(res.status).toBe(400);
        expect(JSON.stringify(await json(res))).toContain('limit must be an integer between 1 and 500');
      }
      expect((await h.admin('/api/mappings?status=done')).status).toBe(400);
      expect((await h.admin('/api/mappings?cursor=zz')).status).toBe(400);
      expect((await h.admin('/api/mappings?colour=red')).status).toBe(400);
    });

    it('deletes a mapping: 204, then 404; 400 for a non-numeric id', async () => {
      const m = await json(await post({ crm: 'appointment', appointment_id: 'DEL-1', project_id: '8001' }));
      expect((await h.admin(`/api/mappings/${m.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await h.admin(`/api/mappings/${m.id}`, { method: 'DELETE' })).status).toBe(404);
      expect((await h.admin('/api/mappings/abc', { method: 'DELETE' })).status).toBe(400);
      // The appointment is free again.
      expect((await post({ crm: 'appointment', appointment_id: 'DEL-1', project_id: '8002' })).status).toBe(201);
    });

    it('tells a route that does not exist (code route_not_found) from a record that does not', async () => {
      const noRoute = await h.admin('/api/no-such-route');
      expect(noRoute.status).toBe(404);
      expect(await noRoute.json()).toMatchObject({ statusCode: 404, code: 'route_not_found' });
      const noRecord = await h.admin('/api/mappings/999999999', { method: 'DELETE' });
      expect(noRecord.status).toBe(404);
      expect(((await noRecord.json()) as { code?: string }).code).toBeUndefined();
    });
  });
});
