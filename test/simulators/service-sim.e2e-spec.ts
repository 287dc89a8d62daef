import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceSim, WebhookSender, events, signWebhook } from '../../sim/service/index.js';

describe(ServiceSim.name, () => {
  const sim = new ServiceSim();
  const auth = { authorization: 'Bearer sim-token' };
  const api = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${sim.apiBaseUrl}${path}`, { ...init, headers: { ...auth, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const post = (path: string, body: string): Promise<Response> => api(path, { method: 'POST', body });
  const json = async <T>(res: Promise<Response>): Promise<T> => (await (await res).json()) as T;

  beforeAll(() => sim.start());
  afterAll(() => sim.stop());

  it('answers 401 without the right bearer token', async () => {
    expect((await fetch(`${sim.apiBaseUrl}/projects`)).status).toBe(401);
    expect((await fetch(`${sim.apiBaseUrl}/projects`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await api('/projects')).status).toBe(200);
  });

  it('paginates lists, with an empty page past the end', async () => {
    const project = sim.addProject({ name: 'Paged' });
    const drawings = Array.from({ length: 3 }, () => sim.addDrawing(project.id));
    const ids = async (page: number): Promise<string[]> => {
      const text = await (await api(`/projects/${project.id}/drawings?page=${page}&per_page=2`)).text();
      return [...text.matchAll(/"id":(\d+)/g)].map((m) => m[1]);
    };
    expect(await ids(1)).toEqual([drawings[0].id, drawings[1].id]);
    expect(await ids(2)).toEqual([drawings[2].id]);
    expect(await (await api(`/projects/${project.id}/drawings?page=3&per_page=2`)).json()).toEqual([]);
  });

  it('writes a big project id as a bare number in P1 and as a string in P2', async () => {
    const created = await post('/projects', JSON.stringify({ name: 'Big id', owner: 'owner@example.com' }));
    const p2 = await created.text();
    const id = /"id":"(\d+)"/.exec(p2)![1];
    expect(BigInt(id) > 2n ** 53n).toBe(true);
    const p1 = await (await api('/projects?per_page=1')).text();
    expect(p1).toContain(`"id":${id},`);
    expect((await post('/projects', JSON.stringify({ name: 'Big id', owner: 'x' }))).status).toBe(400);
    expect((await post('/projects', JSON.stringify({ name: 'a/b', owner: 'x' }))).status).toBe(400);
  });

  it('associates appointments in batch, with flat or wrapped fail items', async () => {
    const [a, b] = [sim.addProject(), sim.addProject()];
    const batch = (items: object[]): Promise<Response> => post('/appointment_crm/batch/associate_project', JSON.stringify({ items }));
    const first = await (
      await batch([
        { appointment_id: 'apt-1', project_id: a.id },
        { appointment_id: 'apt-2', project_id: '999' },
      ])
    ).json();
    expect(first).toEqual({
      success_items: [{ appointment_id: 'apt-1', project_id: a.id }],
      fail_items: [{ appointment_id: 'apt-2', project_id: '999', message: 'project not found' }],
    });
    sim.failItemStyle = 'wrapped';
    const second = await json<{ success_items: unknown[]; fail_items: unknown[] }>(
      batch([
        { appointment_id: 'apt-1', project_id: a.id },
        { appointment_id: 'apt-3', project_id: a.id },
        { appointment_id: 'apt-1', project_id: b.id },
      ]),
    );
    expect(second.success_items).toEqual([{ appointment_id: 'apt-1', project_id: a.id }]);
    expect(second.fail_items).toEqual([
      { data: { appointment_id: 'apt-3', project_id: a.id }, message: 'project already associated with an appointment' },
      { data: { appointment_id: 'apt-1', project_id: b.id }, message: 'appointment already associated with another project' },
    ]);
    sim.failItemStyle = 'flat';
    expect(sim.appointmentAssociations.get(a.id)).toBe('apt-1');
    expect(sim.calls.a2).toBe(2);
  });

  it('C1 wants project_id as a JSON integer and finds the project by its exact digits', async () => {
    const project = sim.addProject();
    const body = (id: string): string => `{"record_crm_module":"Deals","record_crm_record_id":"r-1","project_id":${id}}`;
    expect((await post('/record_crm/associate_project', body(`"${project.id}"`))).status).toBe(400);
    const res = await post('/record_crm/associate_project', body(project.id));
    expect(res.status).toBe(200);
    expect(sim.recordAssociations.get(project.id)).toEqual({ module: 'Deals', recordId: 'r-1' });
    expect((await post('/record_crm/associate_project', body((BigInt(project.id) + 1000n).toString()))).status).toBe(404);
  });

  it('A3 answers 405 on GET by default and the connection on POST', async () => {
    const product = sim.addProduct();
    sim.connectProduct(product.id, 'ext-9');
    const path = `/appointment_crm/connected_product/${product.id}`;
    expect((await api(path)).status).toBe(405);
    expect(await (await api(path, { method: 'POST' })).json()).toEqual({ connected_product_id: 'ext-9' });
  });

  it('exports a proposal PDF (R4) served without auth, and drawing PDFs by version (D1)', async () => {
    const template = sim.addTemplate('Standard');
    const drawing = sim.addDrawing(sim.addProject().id);
    const { url } = await json<{ url: string }>(post('/export_proposal_pdf', JSON.stringify({ template_id: template.id, drawing_id: drawing.id })));
    const pdf = await fetch(url);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const text = await pdf.text();
    expect(text.startsWith('%PDF-')).toBe(true);
    expect(text).toContain(`template=${template.id} drawing=${drawing.id}`);
    expect(sim.requestsTo('GET', new URL(url).pathname)[0].headers.authorization).toBeUndefined();

    const v1 = drawing.versionId;
    sim.updateDrawing(drawing.id);
    const old = await json<{ pdf_url: string }>(api(`/drawings/${drawing.id}?drawing_version_id=${v1}`));
    expect(await (await fetch(old.pdf_url)).text()).toContain(`drawing ${drawing.id} v1`);
    expect((await api(`/drawings/${drawing.id}/line_items?drawing_version_id=${v1}`)).status).toBe(200);
    expect((await api(`/drawings/${drawing.id}/line_items?drawing_version_id=1`)).status).toBe(404);

    const big = await fetch(sim.serveGeneratedFile(3_000_000));
    expect((await big.arrayBuffer()).byteLength).toBe(3_000_000);
  });

  it('injects a 429 with Retry-After', async () => {
    sim.injectFault({ method: 'GET', path: '/v1/products', times: 1, status: 429, retryAfterSeconds: 3 });
    const res = await api('/products');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect((await api('/products')).status).toBe(200);
  });
});

describe(WebhookSender.name, () => {
  it('signs as t=<ts>,v=<hex HMAC-SHA256 of "<ts>.<body>">', () => {
    const expected = createHmac('sha256', 'shh').update('1700000000.{"a":1}').digest('hex');
    expect(signWebhook('shh', '{"a":1}', 1700000000)).toBe(`t=1700000000,v=${expected}`);
  });

  it('retries on the scaled schedule with the same body and a new signature each attempt', async () => {
    const received: { body: string; signature: string }[] = [];
    const receiver = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString(), signature: String(req.headers['service-signature']) });
        res.writeHead(received.length <= 2 ? 500 : 200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const sender = new WebhookSender({ timeScale: 0.001 });
    try {
      const body = events.projectCreated({ id: '36029621652695017', name: 'P', created_at: '', updated_at: '', tags: [], archived: false });
      const result = await sender.send(url, body, { secret: 'shh' });
      expect(result.delivered).toBe(true);
      expect(result.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
      const [first, second, third] = result.attempts.map((a) => a.at);
      expect(second - first).toBeGreaterThanOrEqual(14);
      expect(third - second).toBeGreaterThanOrEqual(29);
    } finally {
      sender.stop();
      receiver.close();
    }
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    expect(received[0].body).toContain('"id":"36029621652695017"');
    expect(new Set(received.map((r) => r.signature)).size).toBe(3);
    for (const { body, signature } of received) {
      const t = /t=(\d+)/.exec(signature)![1];
      expect(signature).toBe(signWebhook('shh', body, Number(t)));
    }
  });
});
