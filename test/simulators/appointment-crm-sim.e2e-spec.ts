import { makePdf } from '../../sim/common/sim-server.js';
import { AppointmentCrmSim } from '../../sim/appointment-crm/appointment-crm-sim.js';

describe(AppointmentCrmSim.name, () => {
  const sim = new AppointmentCrmSim();
  const apptId = '36029621652695017';
  const auth = { authorization: 'Bearer appt-key' };
  const json = { ...auth, 'content-type': 'application/json' };
  const call = (method: string, path: string, init: RequestInit = {}) => fetch(`${sim.url}${path}`, { method, headers: auth, ...init });

  const upload = (category: string, pdf?: Buffer, name = 'Plan ü.pdf') => {
    const form = new FormData();
    form.append('category', category);
    if (pdf) form.append('file', new Blob([pdf], { type: 'application/pdf' }), name);
    return call('POST', `/appointments/${apptId}/files`, { body: form });
  };

  beforeAll(() => sim.start());
  beforeEach(() => sim.addAppointment(apptId));
  afterAll(() => sim.stop());

  it('answers 401 without the key and 404 for an unknown appointment', async () => {
    expect((await fetch(`${sim.url}/appointments/${apptId}`)).status).toBe(401);
    const wrong = await fetch(`${sim.url}/appointments/${apptId}`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    const unknown = await call('GET', '/appointments/999');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: expect.any(String) });
    expect((await call('GET', '/appointments/999/files')).status).toBe(404);
  });

  it('returns the appointment with its id as the exact string', async () => {
    const res = await call('GET', `/appointments/${apptId}`);
    expect(await res.json()).toEqual({
      id: apptId,
      status: 'Scheduled',
      scheduled_at: null,
      ends_at: null,
      job_number: null,
      updated_at: sim.get(apptId)!.updated_at,
      updated_by: null,
      customer: null,
      sales_rep: null,
      sale: null,
    });
  });

  it('keeps uploaded bytes exactly, lists and deletes files', async () => {
    const pdf = makePdf('drawing-1', 5000);
    const res = await upload('drawing', pdf);
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string };
    expect(created).toEqual({ id: expect.any(String), name: 'Plan ü.pdf', category: 'drawing', size: pdf.length });

    const list = await call('GET', `/appointments/${apptId}/files`);
    expect(await list.json()).toEqual([created]);
    expect(sim.fileBytes(apptId, 'drawing')).toEqual([pdf]);
    expect(sim.filesOf(apptId, 'drawing')[0].contentType).toBe('application/pdf');
    expect(sim.uploads).toHaveLength(1);

    const del = await call('DELETE', `/appointments/${apptId}/files/${created.id}`);
    expect(del.status).toBe(204);
    expect(sim.filesOf(apptId)).toEqual([]);
    expect((await call('DELETE', `/appointments/${apptId}/files/${created.id}`)).status).toBe(404);
  });

  it('rejects an upload with a bad category or without a file', async () => {
    const bad = await upload('photo', makePdf('x'));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('category');
    expect((await upload('proposal')).status).toBe(400);
    expect(sim.filesOf(apptId)).toEqual([]);
  });

  it('replaces the sale keeping big integers exact, and keeps the previous one', async () => {
    const put = (body: string) => call('PUT', `/appointments/${apptId}/sale`, { headers: json, body });
    expect((await put('{"items":[{"product_id":9007199254740993,"quantity":2}],"total":10.5}')).status).toBe(200);
    const second = await put('{"items":[],"total":0}');
    expect(await second.json()).toEqual({ items: [], total: 0 });
    expect(sim.get(apptId)!.sale).toEqual({ items: [], total: 0 });
    expect(sim.get(apptId)!.saleHistory).toEqual([{ items: [{ product_id: '9007199254740993', quantity: 2 }], total: 10.5 }]);
    expect((await put('{"items":"no"}')).status).toBe(400);
    // Who put it and when, answered with the appointment (the revenue check's "who changed it"); a person's edit too.
    const shown = (await (await call('GET', `/appointments/${apptId}`)).json()) as { sale: Record<string, unknown>; updated_by: string };
    expect(shown.sale).toEqual({ items: [], total: 0, updated_at: sim.get(apptId)!.updated_at, updated_by: sim.apiKeyUser });
    sim.personEdits(apptId, { sale: null }, 'Pat Manager');
    expect(await (await call('GET', `/appointments/${apptId}`)).json()).toMatchObject({ sale: null, updated_by: 'Pat Manager' });
  });

  it('sets the status and adds notes', async () => {
    const patch = await call('PATCH', `/appointments/${apptId}`, { headers: json, body: '{"status":"Sold"}' });
    expect(patch.status).toBe(200);
    expect(await patch.json()).toMatchObject({ id: apptId, status: 'Sold' });
    expect((await call('PATCH', `/appointments/${apptId}`, { headers: json, body: '{"status":1}' })).status).toBe(400);

    const note = await call('POST', `/appointments/${apptId}/notes`, { headers: json, body: '{"text":"Paid 100"}' });
    expect(note.status).toBe(201);
    expect(await note.json()).toMatchObject({ id: expect.any(String), text: 'Paid 100' });
    expect(sim.get(apptId)!.notes.map((n) => n.text)).toEqual(['Paid 100']);
    expect((await call('POST', `/appointments/${apptId}/notes`, { headers: json, body: '{}' })).status).toBe(400);
  });

  it('answers an injected 503, then succeeds', async () => {
    sim.injectFault({ method: 'POST', path: `/appointments/${apptId}/files`, times: 1, status: 503 });
    expect((await upload('proposal', makePdf('p'))).status).toBe(503);
    expect(sim.filesOf(apptId)).toEqual([]);
    expect((await upload('proposal', makePdf('p'))).status).toBe(201);
    expect(sim.fileBytes(apptId, 'proposal')).toEqual([makePdf('p')]);
  });

  describe('the third-wave routes', () => {
    const base = Date.parse('2026-11-01T10:00:00.000Z');
    const at = (seconds: number) => new Date(base + seconds * 1000);
    const big = (n: number) => `90071992547409${String(900 + n)}`; // beyond 2^53, same length: text order is number order
    const listed = async (query: string) => {
      const res = await call('GET', `/appointments?${query}`);
      expect(res.status).toBe(200);
      return (await res.json()) as { items: Array<Record<string, any>>; next_cursor: string | null };
    };

    beforeEach(() => sim.appointments.clear());

    it('lists changes oldest first, equal times by id, and pages with a cursor', async () => {
      for (const n of [5, 3, 4]) sim.addAppointment(big(n), { updated_at: at(10).toISOString() }); // equal times
      sim.addAppointment(big(1), { updated_at: at(20).toISOString() });
      sim.addAppointment(big(2), { updated_at: at(5).toISOString() });
      const first = await listed('limit=2');
      expect(first.items.map((a) => a.id)).toEqual([big(2), big(3)]);
      const second = await listed(`limit=2&cursor=${first.next_cursor}`);
      expect(second.items.map((a) => a.id)).toEqual([big(4), big(5)]);
      const last = await listed(`limit=2&cursor=${second.next_cursor}`);
      expect(last).toEqual({ items: [expect.objectContaining({ id: big(1) })], next_cursor: null });

      const since = await listed(`updated_since=${encodeURIComponent(at(10).toISOString())}`);
      expect(since.items.map((a) => a.id)).toEqual([big(3), big(4), big(5), big(1)]);
    });

    it('moves an edited appointment to the end, with every field', async () => {
      sim.addAppointment(big(1), { updated_at: at(1).toISOString() });
      sim.addAppointment(big(2), { updated_at: at(2).toISOString() });
      const customer = {
        name: 'Ana Ruiz',
        email: 'ana@example.com',
        phone: '+1 (555) 010-2030',
        address: { street: '1 Main St', city: 'Austin', state: 'TX', zip_code: '78701', country: 'US' },
      };
      sim.editAppointment(big(1), { job_number: 'J-77', customer, sales_rep: { name: 'Sam', email: 'sam@example.com', phone: '+1 512 555 0199' } }, at(3));
      const { items } = await listed(`updated_since=${encodeURIComponent(at(2).toISOString())}`);
      expect(items).toEqual([
        expect.objectContaining({ id: big(2) }),
        {
          id: big(1),
          status: 'Scheduled',
          scheduled_at: null,
          ends_at: null,
          job_number: 'J-77',
          updated_at: at(3).toISOString(),
          updated_by: 'Sam Ortiz',
          customer,
          sales_rep: { name: 'Sam', email: 'sam@example.com', phone: '+1 512 555 0199' },
        },
      ]);
    });

    it('refuses a bad limit, time or cursor', async () => {
      for (const query of ['limit=0', 'limit=501', 'limit=x', 'updated_since=yesterday', 'cursor=bm9wZQ']) {
        expect((await call('GET', `/appointments?${query}`)).status).toBe(400);
      }
      expect((await listed('limit=500')).items).toEqual([]);
    });

    it('searches by text, job number, e-mail and phone', async () => {
      sim.addAppointment(big(1), { job_number: 'J-1', customer: { name: 'Ana Ruiz', email: 'Ana@Example.com', phone: '555-010-2030', address: null } });
      sim.addAppointment(big(2), { job_number: 'J-12', customer: { name: 'Bo Lee', email: 'bo@example.com', phone: null, address: null } });
      const ids = async (query: string) => (await listed(query)).items.map((a) => a.id).sort();
      expect(await ids('q=ruiz')).toEqual([big(1)]);
      expect(await ids('q=J-1')).toEqual([big(1), big(2)]);
      expect(await ids('job_number=J-1')).toEqual([big(1)]);
      expect(await ids('email=ana%40example.com')).toEqual([big(1)]);
      // Phones compare on their last 10 digits: a country code on one side only still matches, another number not.
      expect(await ids('phone=%2B1%20555%20010%202030')).toEqual([big(1)]);
      expect(await ids('phone=%2B1%20555%20010%202031')).toEqual([]);
      expect(await ids('phone=010-2030')).toEqual([]);
      expect(await ids('phone=(555)%20010-2030')).toEqual([big(1)]);
      expect((await call('GET', '/appointments?q=')).status).toBe(400);
    });

    it('lists notes, or answers 404 as an implementation without the listing', async () => {
      sim.addAppointment(apptId, { notes: [{ id: '7', text: 'Paid 1', created_at: at(0).toISOString() }] });
      expect(await (await call('GET', `/appointments/${apptId}/notes`)).json()).toEqual([{ id: '7', text: 'Paid 1', created_at: at(0).toISOString() }]);
      sim.listsNotes = false;
      try {
        expect((await call('GET', `/appointments/${apptId}/notes`)).status).toBe(404);
      } finally {
        sim.listsNotes = true;
      }
    });

    it('answers a repeated Idempotency-Key with the first answer, applying the write once', async () => {
      sim.addAppointment(apptId);
      const note = (key: string, text: string, path = `/appointments/${apptId}/notes`) =>
        call('POST', path, { headers: { ...json, 'idempotency-key': key }, body: JSON.stringify({ text }) });
      const first = await note('k-1', 'Paid 5');
      const again = await note('k-1', 'Paid 5');
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await again.json()).toEqual(await first.json());
      expect(sim.get(apptId)!.notes).toHaveLength(1);
      expect(sim.keyedWrites.slice(-2)).toEqual([
        { key: 'k-1', method: 'POST', path: `/appointments/${apptId}/notes`, replayed: false },
        { key: 'k-1', method: 'POST', path: `/appointments/${apptId}/notes`, replayed: true },
      ]);
      expect((await call('PATCH', `/appointments/${apptId}`, { headers: { ...json, 'idempotency-key': 'k-1' }, body: '{"status":"Sold"}' })).status).toBe(422);
      expect(sim.get(apptId)!.status).toBe('Scheduled');

      sim.honoursIdempotencyKeys = false;
      try {
        await note('k-2', 'Paid 6');
        await note('k-2', 'Paid 6');
      } finally {
        sim.honoursIdempotencyKeys = true;
      }
      expect(sim.get(apptId)!.notes.map((n) => n.text)).toEqual(['Paid 5', 'Paid 6', 'Paid 6']);
    });

    it('does not keep an injected 5xx as the answer of a key', async () => {
      sim.addAppointment(apptId);
      sim.injectFault({ method: 'PATCH', path: `/appointments/${apptId}`, status: 503, times: 1 });
      const patch = () => call('PATCH', `/appointments/${apptId}`, { headers: { ...json, 'idempotency-key': 'k-3' }, body: '{"status":"Sold"}' });
      expect((await patch()).status).toBe(503);
      expect((await patch()).status).toBe(200);
      expect(sim.get(apptId)!.status).toBe('Sold');
    });

    it('can apply a write and lose its answer', async () => {
      sim.addAppointment(apptId);
      sim.injectFault({ method: 'POST', path: `/appointments/${apptId}/notes`, times: 1, afterHandling: true, dropConnection: true });
      await expect(call('POST', `/appointments/${apptId}/notes`, { headers: json, body: '{"text":"Paid 9"}' })).rejects.toThrow();
      expect(sim.get(apptId)!.notes.map((n) => n.text)).toEqual(['Paid 9']);
    });
  });
});
