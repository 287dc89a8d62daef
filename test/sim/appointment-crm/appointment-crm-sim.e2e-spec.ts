import { makePdf } from '../common/sim-server.js';
import { AppointmentCrmSim } from './appointment-crm-sim.js';

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
    expect(await res.json()).toEqual({ id: apptId, status: 'Scheduled', sale: null });
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
});
