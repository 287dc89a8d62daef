import { environmentConnections } from '../support/environment-connections.js';
import { Logger } from '@nestjs/common';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { loadConfig } from '../../src/config/app-config.js';
import { MetricsService } from '../../src/observability/metrics.service.js';
import { OutboundError } from '../../src/http/outbound-error.js';
import { PdfRejectedError } from '../../src/http/pdf-download.js';
import { SharedRedisService } from '../../src/queues/shared-redis.service.js';
import { ServiceApiClient } from '../../src/service-api/service-api.client.js';
import { makePdf } from '../../sim/common/sim-server.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { baseEnv, fastRetries, removeQueueKeys } from '../support/harness.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The client of the service's v1 API against the simulator, over real HTTP. */
describe(ServiceApiClient.name, () => {
  const sim = new ServiceSim();
  let client: ServiceApiClient;
  let metrics: MetricsService;
  let shared: SharedRedisService;
  let prefix: string;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    await sim.start();
    const config = loadConfig({ ...baseEnv(sim, 'postgres://unused@127.0.0.1/x', 1), HTTP_TIMEOUT_MS: '500', PDF_MAX_BYTES: '100000' });
    fastRetries(config);
    metrics = new MetricsService();
    prefix = config.queuePrefix;
    shared = new SharedRedisService(config);
    client = new ServiceApiClient(config, environmentConnections(config), metrics, shared);
  });
  afterAll(async () => {
    await removeQueueKeys(1, prefix);
    shared.onApplicationShutdown();
    await sim.stop();
  });
  afterEach(() => {
    sim.clearFaults();
    sim.latencyMs = 0;
  });

  const authHeaders = () => sim.requests.map((r) => r.headers.authorization);

  describe('projects (P1 to P12)', () => {
    it('creates, reads, updates, searches, archives and transfers projects; ids stay exact strings', async () => {
      const created = await client.createProject({ name: 'Smith roof', owner: 'owner@example.com', tags: ['roof'] });
      expect(typeof created.id).toBe('string');
      expect(BigInt(created.id) > 2n ** 53n).toBe(true);

      const read = await client.getProject(created.id); // P4 writes the id as a bare JSON number
      expect(sim.requests.at(-1)!.path).toBe(`/v1/projects/${created.id}`);
      expect(read.id).toBe(created.id);

      await client.updateProject(created.id, { name: 'Smith roof 2', operator: 'owner@example.com' });
      expect((await client.getProject(created.id)).name).toBe('Smith roof 2');

      const found = await client.searchProjects({ projectName: 'Smith roof 2' });
      expect(found.map((p) => p.id)).toContain(created.id);

      const added = await client.addCollaborators(created.id, [
        { email: 'estimator@example.com', role: 'PROJECT_COLLABORATOR' },
        { email: 'stranger@example.com', role: 'PROJECT_VIEWER' },
      ]);
      expect(added.success_items).toHaveLength(1);
      expect(added.fail_items[0]).toMatchObject({ data: { email: 'stranger@example.com' }, message: expect.any(String) });
      await client.removeCollaborators(created.id, ['estimator@example.com']);
      expect(sim.collaborators.get(created.id) ?? []).toHaveLength(0);

      await client.archiveProject(created.id);
      expect(sim.projects.get(created.id)!.archived).toBe(true);
      await client.unarchiveProject(created.id);
      expect(sim.projects.get(created.id)!.archived).toBe(false);
      await client.transferOwner(created.id, 'estimator@example.com');
      expect(sim.projectOwners.get(created.id)).toBe('estimator@example.com');
      expect(new Set(authHeaders())).toEqual(new Set([`Bearer ${sim.token}`]));
    });

    it('reads every page until an empty one (P1, P8)', async () => {
      const project = sim.addProject();
      const drawings = Array.from({ length: 230 }, () => sim.addDrawing(project.id));
      const seen: string[] = [];
      for await (const d of client.allDrawings(project.id)) seen.push(d.id);
      expect(seen.sort()).toEqual(drawings.map((d) => d.id).sort());
      const pages = sim.requestsTo('GET', `/v1/projects/${project.id}/drawings`).map((r) => r.query.get('page'));
      expect(pages).toEqual(['1', '2', '3', '4']);

      const all: string[] = [];
      for await (const p of client.allProjects()) all.push(p.id);
      expect(all).toContain(project.id);
    });

    it('imports a PDF from a URL and from a stream (P9)', async () => {
      const project = sim.addProject();
      const fromUrl = await client.importPdf(project.id, { fileUrl: sim.serveFile(makePdf('by url')) });
      expect(fromUrl.drawings[0].id).toEqual(expect.any(String));
      const fromFile = await client.importPdf(project.id, { file: Readable.from([makePdf('by file')]), fileName: 'plan.pdf' });
      expect(fromFile.drawings[0].id).toEqual(expect.any(String));
    });
  });

  describe('drawings, products, proposals (D1 to D4, R1 to R5)', () => {
    it('reads a drawing, its line items at a version, takeoff and field data', async () => {
      const project = sim.addProject();
      const drawing = sim.addDrawing(project.id);
      const v1 = drawing.versionId;
      sim.updateDrawing(drawing.id);
      expect((await client.getDrawing(drawing.id)).project_id).toBe(project.id);
      expect((await client.getLineItems(drawing.id, v1)).drawing_version_id).toBe(v1);
      expect((await client.getLineItems(drawing.id)).drawing_version_id).not.toBe(v1);
      expect(sim.requests.at(-2)!.query.get('drawing_version_id')).toBe(v1);
      expect((await client.getTakeoffItems(drawing.id)).takeoff_items).toEqual(expect.any(Array));
      expect((await client.getFieldData(drawing.id)).groups).toEqual(expect.any(Array));
    });

    it('lists products, templates, proposals and payments, and exports a proposal PDF', async () => {
      const product = sim.addProduct();
      expect((await client.listProducts({ perPage: 100 })).map((p) => p.id)).toContain(product.id);
      const template = sim.addTemplate('Standard');
      expect((await client.listProposalTemplates()).map((t) => t.id)).toContain(template.id);
      const project = sim.addProject();
      const drawing = sim.addDrawing(project.id);
      const proposal = sim.addProposal({ project_id: project.id, status: 'APPROVED', approved_option: { drawing_id: drawing.id } });
      sim.addPayment(proposal.proposal_id, {
        paid_amount: 99.5,
        pay_channel: 'mark_as_paid',
        paid_date: '2026-11-01',
        payment_method: 'Cash',
        status: 'succeeded',
      });
      const proposals = await client.listProposals({ projectId: project.id });
      expect(proposals[0].proposal_id).toBe(proposal.proposal_id); // a bare JSON number in R3, exact here
      expect(await client.listPayments(proposal.proposal_id)).toEqual([expect.objectContaining({ paid_amount: 99.5 })]);
      const url = await client.exportProposalPdf(template.id, drawing.id);
      const pdf = await client.openPdf(url);
      expect((await readAll(pdf.stream)).subarray(0, 5).toString()).toBe('%PDF-');
      const download = sim.requests.at(-1)!;
      expect(download.headers.authorization).toBeUndefined(); // the service's token never goes to a download address
    });
  });

  describe('CRM integrations (A1 to A3, C1)', () => {
    it('associates appointments one by one (A1) and in a batch (A2), reading fail items flat or wrapped', async () => {
      const [p1, p2, p3] = [sim.addProject(), sim.addProject(), sim.addProject()];
      expect((await client.associateAppointment({ appointment_id: 'A-1', project_id: p1.id })).id).toBe(p1.id);
      for (const style of ['flat', 'wrapped'] as const) {
        sim.failItemStyle = style;
        const result = await client.batchAssociateAppointments([
          { appointment_id: `B-${style}`, project_id: p2.id },
          { appointment_id: `C-${style}`, project_id: p1.id }, // p1 is associated with A-1 already
        ]);
        expect(result.successItems).toEqual([{ appointment_id: `B-${style}`, project_id: p2.id }]);
        expect(result.failItems).toEqual([{ appointment_id: `C-${style}`, project_id: p1.id, message: expect.any(String) }]);
        sim.appointmentAssociations.delete(p2.id);
      }
      expect(p3).toBeDefined();
    });

    it('sends C1 project_id as a JSON integer written digit for digit', async () => {
      const project = sim.addProject({ id: '36029621652695999123' } as never);
      await client.associateRecord({ module: 'Deals', recordId: '4150868000005277036', projectId: project.id });
      const body = sim.requestsTo('POST', '/v1/record_crm/associate_project').at(-1)!.body.toString();
      expect(body).toContain(`"project_id":${project.id}`);
      expect(body).toContain('"record_crm_record_id":"4150868000005277036"');
    });

    it('asks A3 with GET and falls back to POST on 405; null when nothing is connected', async () => {
      const product = sim.addProduct();
      sim.connectProduct(product.id, '9000000000000000001');
      sim.a3Method = 'POST';
      expect(await client.getConnectedProduct(product.id)).toBe('9000000000000000001');
      const methods = sim.requestsTo('GET', /connected_product/).length + sim.requestsTo('POST', /connected_product/).length;
      expect(methods).toBe(2);
      sim.a3Method = 'GET';
      expect(await client.getConnectedProduct(sim.addProduct().id)).toBeNull();
    });

    it('reads an A3 404 as "none" only when the service says so; a proxy\'s or another route\'s 404 is an error', async () => {
      const product = sim.addProduct();
      const a3 = { method: 'GET', path: /connected_product/, times: 1, status: 404 };
      sim.injectFault({ ...a3, body: '<html><body>404 Not Found</body></html>', contentType: 'text/html' });
      await expect(client.getConnectedProduct(product.id)).rejects.toMatchObject({ status: 404 });
      sim.injectFault({ ...a3, body: { message: 'no Route matched with those values' } });
      await expect(client.getConnectedProduct(product.id)).rejects.toMatchObject({
        failure: 'not_found',
        message: expect.stringContaining('not the service\'s "no connected product"'),
      });
      sim.injectFault({ ...a3, body: '', contentType: 'application/json' });
      await expect(client.getConnectedProduct(product.id)).rejects.toMatchObject({ failure: 'not_found' });
      // The service's own answer (the simulator's), with and without a reason.
      expect(await client.getConnectedProduct(product.id)).toBeNull();
      sim.injectFault({ ...a3, body: {} });
      expect(await client.getConnectedProduct(product.id)).toBeNull();
    });

    it('reads a malformed A2 or A3 answer as a clear invalid_response, or drops an item naming no pair', async () => {
      const a2 = '/v1/appointment_crm/batch/associate_project';
      const pair = { appointment_id: 'D-1', project_id: '1' };
      sim.injectFault({ method: 'POST', path: a2, times: 1, status: 200, body: { success_items: [pair], fail_items: {} } });
      await expect(client.batchAssociateAppointments([pair])).rejects.toMatchObject({
        failure: 'invalid_response',
        message: expect.stringContaining('expected an object whose fail_items is a list'),
      });
      sim.injectFault({
        method: 'POST',
        path: a2,
        times: 1,
        status: 200,
        body: { success_items: [{ appointment_id: true }, pair, null], fail_items: [{ data: 7 }] },
      });
      expect(await client.batchAssociateAppointments([pair])).toEqual({ successItems: [pair], failItems: [] });

      const product = sim.addProduct();
      sim.injectFault({ method: 'GET', path: /connected_product/, times: 1, status: 200, body: { connected_product_id: { id: 1 } } });
      await expect(client.getConnectedProduct(product.id)).rejects.toMatchObject({
        failure: 'invalid_response',
        message: expect.stringContaining('connected_product_id is not an id'),
      });
    });
  });

  describe('failures', () => {
    it('waits out a 429 with Retry-After and retries a 5xx', async () => {
      sim.injectFault({ method: 'GET', path: '/v1/proposal_templates', times: 1, status: 429, retryAfterSeconds: 1 });
      const started = Date.now();
      await client.listProposalTemplates();
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      sim.injectFault({ method: 'GET', path: '/v1/proposal_templates', times: 2, status: 503 });
      await expect(client.listProposalTemplates()).resolves.toEqual(expect.any(Array));
    });

    it('gives up after the bound with a typed error naming the endpoint and status', async () => {
      sim.injectFault({ method: 'GET', path: '/v1/proposal_templates', times: 10, status: 502, body: { error: 'bad gateway upstream' } });
      const before = sim.requestsTo('GET', '/v1/proposal_templates').length;
      const error = await client.listProposalTemplates().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutboundError);
      expect(error).toMatchObject({ system: 'service', endpoint: 'R2 GET /proposal_templates', status: 502, transient: true });
      expect((error as Error).message).toContain('bad gateway upstream');
      expect(sim.requestsTo('GET', '/v1/proposal_templates').length - before).toBe(3);
    });

    it('fails at once on a 4xx other than 408/409/429', async () => {
      const before = sim.requests.length;
      const error = await client.getProject('1').catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 404, failure: 'not_found', transient: false });
      expect(sim.requests.length - before).toBe(1);
    });

    it('times out a call that does not answer', async () => {
      sim.injectFault({ method: 'GET', path: '/v1/proposal_templates', times: 10, delayMs: 1_500 });
      const error = await client.listProposalTemplates().catch((e: unknown) => e);
      expect(error).toMatchObject({ failure: 'timeout', transient: true });
    });

    it('refuses a download that is not a PDF, and one over the size cap', async () => {
      await expect(client.openPdf(sim.serveFile(Buffer.from('<html>not a pdf</html>'), 'text/html'))).rejects.toBeInstanceOf(PdfRejectedError);
      await expect(client.openPdf(sim.serveFile(makePdf('big', 150_000)))).rejects.toThrow(/over the 100000-byte cap/);
      await expect(client.openPdf(sim.serveGeneratedFile(150_000))).rejects.toThrow(/over the 100000-byte cap/);

      // A server that announces no length is cut off as soon as the bytes pass the cap.
      const chunked = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        for (let i = 0; i < 20; i++) res.write(i === 0 ? makePdf('chunked', 10_000) : Buffer.alloc(10_000, 0x20));
        res.end();
      });
      await new Promise<void>((r) => chunked.listen(0, '127.0.0.1', r));
      try {
        const streamed = await client.openPdf(`http://127.0.0.1:${(chunked.address() as AddressInfo).port}/x.pdf`);
        expect(streamed.size).toBeNull();
        await expect(readAll(streamed.stream)).rejects.toThrow(/more than the 100000-byte cap/);
      } finally {
        chunked.closeAllConnections();
        chunked.close();
      }
    });

    it('counts calls by system and status in the metrics', async () => {
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/crm_sync_outbound_requests_total\{system="service",status="200"\} \d+/);
      expect(text).toMatch(/crm_sync_outbound_requests_total\{system="service",status="502"\} \d+/);
    });
  });
});
